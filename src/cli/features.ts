// Feature modules register their commands, schedulers and demo data here (side-effect imports).
export {};
import './commands/accrue.ts'; // lending engine: `accrue` and the accrual scheduler
