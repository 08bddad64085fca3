// Feature modules register their commands, schedulers and demo data here (side-effect imports).
export {};
import './commands/accrue.ts'; // lending engine: `accrue` and the accrual scheduler
import '../services/demoBook.ts'; // lending engine: the demo business's credits and payments
import './commands/report.ts'; // reports: `report summary`
import './commands/export.ts'; // reports: `export DATASET` (CSV on stdout)
import './commands/files.ts'; // client files: `files sweep`
import '../jobs/fileSweep.ts'; // client files: the orphan sweep at start and hourly
