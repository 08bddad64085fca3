// Every route of the service. API routes sit under /api behind the API key or a session; the
// others (public, sessions, operators) do not.
import type { App } from '../types.ts';
import publicRateLimit from '../plugins/publicRateLimit.ts';
import leadRateLimit from '../plugins/leadRateLimit.ts';
import opsRoutes from './ops.ts';
import fileRoutes from './files/index.ts';
import uploadRoutes from './upload/index.ts';
import clientRoutes from './clients/index.ts';
import creditConfigRoutes from './credit-configs/index.ts';
import branchRoutes from './branches/index.ts';
import logRoutes from './logs/index.ts';
import reportRoutes from './reports/index.ts';
import creditRoutes from './credits/index.ts';
import creditCollectionRoutes from './credits/collections.ts';
import clientNoteRoutes from './clients/notes.ts';
import paymentImportRoutes from './payment-imports/index.ts';
import installmentRoutes from './installments/index.ts';
import statementRoutes from './statements/index.ts';
import holidayRoutes from './holidays/index.ts';
import leadRoutes from './leads/index.ts';
import publicLeadRoutes from './leads/public.ts';
import verificationRoutes from './verifications/index.ts';
import eventRoutes from './events/index.ts';
import webhookRoutes from './webhook-endpoints/index.ts';
import userRoutes from './users/index.ts';
import keyRoutes from './keys/index.ts';
import settingsRoutes from './settings/index.ts';
import applicationRoutes from './applications/index.ts';
import guarantorRoutes from './guarantors/index.ts';
import { sessionRoutes, signInRoutes } from './auth/index.ts';
import adminRoutes from './admin/index.ts';
import consoleRoutes from './console.ts';
import notificationRoutes from './notifications/index.ts';
import documentRoutes from './documents/index.ts';

export async function apiRoutes(app: App) {
  await app.register(clientRoutes);
  await app.register(fileRoutes);
  await app.register(creditConfigRoutes);
  await app.register(branchRoutes);
  await app.register(logRoutes);
  await app.register(reportRoutes);
  await app.register(creditRoutes);
  await app.register(creditCollectionRoutes);
  await app.register(clientNoteRoutes);
  await app.register(paymentImportRoutes);
  await app.register(installmentRoutes);
  await app.register(statementRoutes);
  await app.register(holidayRoutes);
  await app.register(leadRoutes);
  await app.register(notificationRoutes);
  await app.register(verificationRoutes);
  await app.register(eventRoutes);
  await app.register(webhookRoutes);
  await app.register(userRoutes);
  await app.register(keyRoutes);
  await app.register(settingsRoutes);
  await app.register(applicationRoutes);
  await app.register(guarantorRoutes);
  await app.register(documentRoutes);
}

export async function publicRoutes(app: App) {
  // health checks, the document and its page: not limited (probes, a browser loading the page)
  await app.register(opsRoutes);
  // the staff console's page and its built files (a browser loads several at once): not limited
  await app.register(consoleRoutes);
  // routes anyone may call, limited per client address (PUBLIC_RATE_LIMIT): upload links, sign-in,
  // set-password and the lead form
  await app.register(async (limited) => {
    await limited.register(publicRateLimit);
    await limited.register(uploadRoutes);
    await limited.register(signInRoutes);
    // the lead form: also its own, stricter limit an hour (LEADS_RATE_LIMIT_PER_HOUR)
    await limited.register(async (leads) => {
      await leads.register(leadRateLimit);
      await leads.register(publicLeadRoutes);
    });
  });
  // a signed-in session's own routes, and the platform operators'
  await app.register(sessionRoutes);
  await app.register(adminRoutes);
}
