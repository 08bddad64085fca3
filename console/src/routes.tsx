// Every page of the console, in one table: its path (under /app), its title, the least role that
// sees it, and whether the menu lists it. Adding a page is one line here and its component.
import type { ComponentType } from 'react';
import type { Role } from './session.tsx';
import { Home } from './pages/Home.tsx';
import { ClientEdit, ClientPage, Clients } from './pages/Clients.tsx';
import { Grant } from './pages/Grant.tsx';
import { CreditPage } from './pages/Credit.tsx';
import { Collections } from './pages/Collections.tsx';
import { CollectionsReport, ImportPage, Imports } from './pages/Payments.tsx';
import { Audit, Branches, Holidays, Keys, Leads, Plans, Users, Webhooks } from './pages/Admin.tsx';
import { ApplicationNew, ApplicationPage, Applications } from './pages/Applications.tsx';
import { Notifications, Settings } from './pages/Settings.tsx';

export interface PageDef {
  path: string;
  title: string;
  component: ComponentType;
  role: Role;
  /** listed in the menu */
  nav?: boolean;
}

export const PAGES: PageDef[] = [
  { path: '/', title: 'Home', component: Home, role: 'viewer', nav: true },
  { path: '/clients', title: 'Clients', component: Clients, role: 'viewer', nav: true },
  { path: '/clients/new', title: 'New client', component: ClientEdit, role: 'employee' },
  { path: '/clients/:id', title: 'Client', component: ClientPage, role: 'viewer' },
  { path: '/clients/:id/edit', title: 'Edit', component: ClientEdit, role: 'employee' },
  { path: '/clients/:id/grant', title: 'Grant a credit', component: Grant, role: 'employee' },
  { path: '/credits/:id', title: 'Credit', component: CreditPage, role: 'viewer' },
  { path: '/applications', title: 'Applications', component: Applications, role: 'viewer', nav: true },
  { path: '/applications/new', title: 'New application', component: ApplicationNew, role: 'employee' },
  { path: '/applications/:id', title: 'Application', component: ApplicationPage, role: 'viewer' },
  { path: '/collections', title: 'Collections', component: Collections, role: 'viewer', nav: true },
  {
    path: '/reports/collections',
    title: 'Collections report',
    component: CollectionsReport,
    role: 'viewer',
    nav: true,
  },
  { path: '/imports', title: 'Payment imports', component: Imports, role: 'employee', nav: true },
  { path: '/imports/:id', title: 'Payment import', component: ImportPage, role: 'viewer' },
  { path: '/notifications', title: 'Notifications', component: Notifications, role: 'viewer', nav: true },
  { path: '/plans', title: 'Plans', component: Plans, role: 'viewer', nav: true },
  { path: '/branches', title: 'Branches', component: Branches, role: 'viewer', nav: true },
  { path: '/holidays', title: 'Holidays', component: Holidays, role: 'viewer', nav: true },
  { path: '/leads', title: 'Leads', component: Leads, role: 'viewer', nav: true },
  { path: '/audit', title: 'Audit log', component: Audit, role: 'viewer', nav: true },
  { path: '/users', title: 'Users', component: Users, role: 'admin', nav: true },
  { path: '/keys', title: 'API keys', component: Keys, role: 'admin', nav: true },
  { path: '/webhooks', title: 'Webhooks', component: Webhooks, role: 'admin', nav: true },
  { path: '/settings', title: 'Settings', component: Settings, role: 'admin', nav: true },
];
