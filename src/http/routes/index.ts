// Every route of the service. API routes sit under /api behind the API key; public ones do not.
import type { App } from '../types.ts';
import publicRateLimit from '../plugins/publicRateLimit.ts';
import opsRoutes from './ops.ts';
import fileRoutes from './files/index.ts';
import uploadRoutes from './upload/index.ts';
import clientRoutes from './clients/index.ts';
import creditConfigRoutes from './credit-configs/index.ts';
import branchRoutes from './branches/index.ts';
import logRoutes from './logs/index.ts';
import reportRoutes from './reports/index.ts';
import creditRoutes from './credits/index.ts';
import installmentRoutes from './installments/index.ts';
import statementRoutes from './statements/index.ts';
import holidayRoutes from './holidays/index.ts';

export async function apiRoutes(app: App) {
  await app.register(clientRoutes);
  await app.register(fileRoutes);
  await app.register(creditConfigRoutes);
  await app.register(branchRoutes);
  await app.register(logRoutes);
  await app.register(reportRoutes);
  await app.register(creditRoutes);
  await app.register(installmentRoutes);
  await app.register(statementRoutes);
  await app.register(holidayRoutes);
}

export async function publicRoutes(app: App) {
  // health checks, the document and its page: not limited (probes, a browser loading the page)
  await app.register(opsRoutes);
  // routes anyone may call, limited per client address (PUBLIC_RATE_LIMIT): later login and leads here too
  await app.register(async (limited) => {
    await limited.register(publicRateLimit);
    await limited.register(uploadRoutes);
  });
}
