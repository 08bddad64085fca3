// The collections worklist (GET /api/installments?overdue=true): overdue installments, most days
// late first as the server orders them, filtered by branch and days late, paged by the server;
// the page's rows can be re-sorted; the CSV export is the reports' installments dataset.
import { useQuery, keepPreviousData } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { type Page, api, qs } from '../api.ts';
import { fmtDate, t } from '../i18n.ts';
import { ErrorNote, Field, Money, Pager, Table } from '../ui.tsx';
import { useBranches } from './shared.ts';

interface Item {
  id: string;
  credit_id: string;
  client_id: string;
  credit_sequential_id: number;
  number: number;
  due_date: string;
  days_late: number;
  outstanding: number;
  punitory_accrued: number;
  punitory_posted: number;
}

const SORTS: Record<string, (a: Item, b: Item) => number> = {
  days_late: (a, b) => b.days_late - a.days_late,
  outstanding: (a, b) => b.outstanding - a.outstanding,
  due_date: (a, b) => a.due_date.localeCompare(b.due_date),
};

export function Collections() {
  const branches = useBranches();
  const [branch, setBranch] = useState('');
  const [minDays, setMinDays] = useState('');
  const [sort, setSort] = useState('days_late');
  const [offset, setOffset] = useState(0);
  const limit = 25;
  const params = { overdue: true, branch_id: branch, min_days_late: minDays };
  const q = useQuery({
    queryKey: ['/api/installments', params, offset],
    queryFn: () => api<Page<Item>>(`/api/installments${qs({ ...params, limit, offset })}`),
    placeholderData: keepPreviousData,
  });
  const rows = [...(q.data?.items ?? [])].sort(SORTS[sort]);
  return (
    <>
      <div className="page-head">
        <h1>{t('Collections worklist')}</h1>
        <a className="button" href="/api/reports/exports/installments.csv" download>
          {t('Export CSV')}
        </a>
      </div>
      <div className="filters">
        <Field
          label={t('Branch')}
          name="branch_id"
          value={branch}
          onChange={(v) => {
            setBranch(v);
            setOffset(0);
          }}
          options={[{ value: '', label: t('All branches') }, ...branches.map((b) => ({ value: b.id, label: b.name }))]}
        />
        <Field
          label={t('Minimum days late')}
          name="min_days_late"
          type="number"
          inputMode="numeric"
          min="0"
          value={minDays}
          onChange={(v) => {
            setMinDays(v);
            setOffset(0);
          }}
        />
        <Field
          label={t('Sort by')}
          name="sort"
          value={sort}
          onChange={setSort}
          options={[
            { value: 'days_late', label: t('Days late') },
            { value: 'outstanding', label: t('Balance') },
            { value: 'due_date', label: t('Due date') },
          ]}
        />
      </div>
      <ErrorNote error={q.error} />
      <Table
        rows={rows}
        rowKey={(i) => i.id}
        columns={[
          {
            header: t('Credit'),
            cell: (i) => (
              <Link href={`/credits/${i.credit_id}`}>{t('Credit #{n}', { n: i.credit_sequential_id })}</Link>
            ),
          },
          { header: t('Client'), cell: (i) => <Link href={`/clients/${i.client_id}`}>{t('Client')}</Link> },
          { header: t('Installment'), cell: (i) => i.number, numeric: true },
          { header: t('Due date'), cell: (i) => fmtDate(i.due_date) },
          { header: t('Days late'), cell: (i) => i.days_late, numeric: true },
          {
            header: t('Punitory'),
            cell: (i) => <Money value={i.punitory_posted + i.punitory_accrued} />,
            numeric: true,
          },
          { header: t('Balance'), cell: (i) => <Money value={i.outstanding} />, numeric: true },
        ]}
      />
      {q.data && (
        <Pager offset={offset} limit={limit} total={q.data.total} count={q.data.items.length} onChange={setOffset} />
      )}
    </>
  );
}
