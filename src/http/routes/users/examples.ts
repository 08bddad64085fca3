// The examples of the users, keys, sessions and operators operations (docs/users.md), in the
// story of src/http/examples.ts: business Demo's admin Laura invites Marcos as an employee.
import { ids } from '../../examples.ts';

const ADMIN = 'a4f0c1de-6b2a-4c8e-9f31-2d7e5b9c0a11';
const EMPLOYEE = 'c7b2e9f4-1a3d-4e5f-8b6c-9d0e1f2a3b4c';
const OPERATOR = 'e1d2c3b4-a596-4788-9a0b-1c2d3e4f5a6b';
const KEY_ID = 'e2cb245c-742f-4033-88e5-20b08de8cf8c';
const SP_TOKEN = 'sp_q3Jt0V9dXkL2mW8nB4cR7yZ1aH6fG5eD0sP9uI3oK2j';

export const userIds = { admin: ADMIN, employee: EMPLOYEE, operator: OPERATOR, key: KEY_ID };

export const business = {
  id: ids.business,
  name: 'Demo',
  timezone: 'America/Argentina/Buenos_Aires',
  created_at: '2026-01-15T13:00:00.000Z',
  updated_at: '2026-01-15T13:00:00.000Z',
  slug: 'demo',
};

export const admin = {
  id: ADMIN,
  business_id: ids.business,
  email: 'laura@demo.example',
  name: 'Laura Pérez',
  role: 'admin' as const,
  branch_id: null,
  created_at: '2026-01-15T13:00:10.000Z',
  updated_at: '2026-01-15T13:05:00.000Z',
  disabled_at: null,
  last_login_at: '2026-03-20T12:00:00.000Z',
  password_set_at: '2026-01-15T13:05:00.000Z',
};

export const userInput = {
  email: 'marcos@demo.example',
  name: 'Marcos Díaz',
  role: 'employee' as const,
  branch_id: ids.branch,
};

export const employee = {
  id: EMPLOYEE,
  business_id: ids.business,
  ...userInput,
  created_at: '2026-03-20T12:01:00.000Z',
  updated_at: '2026-03-20T12:01:00.000Z',
  disabled_at: null,
  last_login_at: null,
  password_set_at: null,
};

export const invitation = {
  ...employee,
  set_password_url: `https://lending.example.com/set-password#token=${SP_TOKEN}`,
  set_password_expires_at: '2026-03-23T12:01:00.000Z',
};

export const passwordToken = SP_TOKEN;

export const apiKey = {
  id: KEY_ID,
  business_id: ids.business,
  name: 'ERP',
  scope: 'full' as const,
  prefix: 'lk_full_Xb3kQ9pL',
  created_at: '2026-01-15T13:01:00.000Z',
  last_used_at: '2026-03-20T15:40:00.000Z',
  revoked_at: null,
};

export const createdKey = {
  ...apiKey,
  last_used_at: null,
  key: 'lk_full_Xb3kQ9pLr2Tz7YcVw1Nn5Gh8Jd4Ks6Ma0Qe3Uo9Bi2Fx',
};

export const operator = { id: OPERATOR, email: 'soporte@platform.example', name: 'Soporte' };

export const meUser = { user: admin, business, operator: null, impersonated_by: null };
export const meOperator = { user: null, business: null, operator, impersonated_by: null };
export const meImpersonating = { user: admin, business, operator, impersonated_by: operator.email };
