// The command line with every feature's commands and jobs registered.
import './features.ts';
export { runCli } from './main.ts';
