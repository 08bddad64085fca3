// The portfolio at a glance (GET /api/reports/summary): what is lent and owed, collected today
// and this month, portfolio at risk and debtor situations as bars, and the same per branch.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, qs } from '../api.ts';
import { fmtDate, fmtMoney, fmtNumber, fmtPct, t } from '../i18n.ts';
import { Bars, Card, ErrorNote, Field, Money, Table } from '../ui.tsx';
import { useBranches } from './shared.ts';

interface Summary {
  as_of: string;
  clients: number;
  credits: Record<string, number>;
  disbursed: number;
  outstanding: number;
  overdue: number;
  par: Record<'par1' | 'par30' | 'par60' | 'par90', { amount: number; ratio: number }>;
  situations: Record<string, { clients: number; outstanding: number }>;
  collected: { day: number; month: number };
  branches: {
    branch_id: string | null;
    name: string;
    outstanding: number;
    overdue: number;
    par30: { amount: number; ratio: number };
  }[];
}

export function Home() {
  const [branch, setBranch] = useState('');
  const branches = useBranches();
  const q = useQuery({
    queryKey: ['summary', branch],
    queryFn: () => api<Summary>(`/api/reports/summary${qs({ branch_id: branch })}`),
  });
  const s = q.data;
  return (
    <>
      <h1>{t('Portfolio summary')}</h1>
      <div className="filters">
        <Field
          label={t('Branch')}
          name="branch"
          value={branch}
          onChange={setBranch}
          options={[{ value: '', label: t('All branches') }, ...branches.map((b) => ({ value: b.id, label: b.name }))]}
        />
      </div>
      <ErrorNote error={q.error} />
      {s && (
        <>
          <p className="muted">
            {t('as of')} {fmtDate(s.as_of)}
          </p>
          <div className="cards">
            <Card label={t('Outstanding')}>
              <Money value={s.outstanding} />
            </Card>
            <Card label={t('Overdue')}>
              <Money value={s.overdue} />
            </Card>
            <Card label={t('Collected today')}>
              <Money value={s.collected.day} />
            </Card>
            <Card label={t('Collected this month')}>
              <Money value={s.collected.month} />
            </Card>
            <Card label={t('Active credits')}>{fmtNumber(s.credits.active)}</Card>
            <Card label={t('Clients')}>{fmtNumber(s.clients)}</Card>
          </div>
          <div className="charts">
            <Bars
              caption={t('Portfolio at risk')}
              format={fmtMoney}
              rows={(['par1', 'par30', 'par60', 'par90'] as const).map((k) => ({
                label: k.toUpperCase(),
                value: s.par[k].amount,
                note: fmtPct(s.par[k].ratio),
              }))}
            />
            <Bars
              caption={t('Debtor situations')}
              format={fmtMoney}
              rows={Object.entries(s.situations).map(([k, v]) => ({
                label: `${t('Situation')} ${k}`,
                value: v.outstanding,
                note: `(${fmtNumber(v.clients)})`,
              }))}
            />
          </div>
          <h2>{t('Per branch')}</h2>
          <Table
            rowKey={(b) => b.branch_id ?? '-'}
            rows={s.branches}
            columns={[
              { header: t('Branch'), cell: (b) => b.name },
              { header: t('Outstanding'), cell: (b) => <Money value={b.outstanding} />, numeric: true },
              { header: t('Overdue'), cell: (b) => <Money value={b.overdue} />, numeric: true },
              { header: 'PAR30', cell: (b) => fmtPct(b.par30.ratio), numeric: true },
            ]}
          />
        </>
      )}
    </>
  );
}
