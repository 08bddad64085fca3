// The collections worklist (GET /api/installments?overdue=true, docs/collections.md): overdue
// installments, narrowed and ordered by the server over the whole list (branch, days late,
// collector, the latest promise's status, the sort), paged by the server; each row names the
// client, the latest promise and the last note, and offers a promise, a note and (admins) the
// collector in a dialog. The CSV export is the reports' installments dataset.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { type Page, api, qs } from '../api.ts';
import { fmtDate, t } from '../i18n.ts';
import { useCan, useMe } from '../session.tsx';
import { ErrorNote, Field, Money, Pager, Status, Table } from '../ui.tsx';
import {
  CollectorDialog,
  type Note,
  NoteDialog,
  PromiseDialog,
  type PromiseToPay,
  collectorName,
  useUsers,
  userName,
} from './CollectionActions.tsx';
import { useBranches } from './shared.ts';

interface Item {
  id: string;
  credit_id: string;
  client_id: string;
  client_name: string;
  credit_sequential_id: number;
  number: number;
  due_date: string;
  days_late: number;
  outstanding: number;
  punitory_accrued: number;
  punitory_posted: number;
  collector_id: string | null;
  latest_promise: PromiseToPay | null;
  last_note: Note | null;
}

const SORTS: [string, string][] = [
  ['due_date', 'Most days late first'],
  ['days_late', 'Fewest days late first'],
  ['-amount', 'Largest balance first'],
  ['amount', 'Smallest balance first'],
  ['client', 'Client name'],
];

type Open = { kind: 'promise' | 'note' | 'collector'; item: Item } | null;

export function Collections() {
  const me = useMe().data;
  const canWrite = useCan('employee');
  const isAdmin = useCan('admin');
  const users = useUsers(isAdmin);
  const branches = useBranches();
  const [branch, setBranch] = useState('');
  const [minDays, setMinDays] = useState('');
  const [collector, setCollector] = useState('');
  const [promise, setPromise] = useState('');
  const [sort, setSort] = useState('due_date');
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<Open>(null);
  const limit = 25;
  const params = {
    overdue: true,
    branch_id: branch,
    min_days_late: minDays,
    collector,
    promise,
    sort: sort === 'due_date' ? '' : sort,
  };
  const q = useQuery({
    queryKey: ['/api/installments', params, offset],
    queryFn: () => api<Page<Item>>(`/api/installments${qs({ ...params, limit, offset })}`),
    placeholderData: keepPreviousData,
  });
  // a new filter starts at the first page
  const filter = (set: (v: string) => void) => (v: string) => {
    set(v);
    setOffset(0);
  };
  const credit = (i: Item) => t('Credit #{n}', { n: i.credit_sequential_id });
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
          onChange={filter(setBranch)}
          options={[{ value: '', label: t('All branches') }, ...branches.map((b) => ({ value: b.id, label: b.name }))]}
        />
        <Field
          label={t('Minimum days late')}
          name="min_days_late"
          type="number"
          inputMode="numeric"
          min="0"
          value={minDays}
          onChange={filter(setMinDays)}
        />
        <Field
          label={t('Collector')}
          name="collector"
          value={collector}
          onChange={filter(setCollector)}
          options={[
            { value: '', label: t('Any collector') },
            { value: 'me', label: t('My credits') },
            { value: 'none', label: t('Without collector') },
            ...users.filter((u) => u.id !== me?.user?.id).map((u) => ({ value: u.id, label: userName(u) })),
          ]}
        />
        <Field
          label={t('Promise')}
          name="promise"
          value={promise}
          onChange={filter(setPromise)}
          options={[
            { value: '', label: t('Any promise') },
            { value: 'pending', label: t('Pending promise') },
            { value: 'broken', label: t('Broken promise') },
            { value: 'none', label: t('No promise') },
          ]}
        />
        <Field
          label={t('Sort by')}
          name="sort"
          value={sort}
          onChange={filter(setSort)}
          options={SORTS.map(([value, label]) => ({ value, label: t(label) }))}
        />
      </div>
      <ErrorNote error={q.error} />
      {!q.data && !q.error ? (
        <p aria-busy="true">{t('Loading')}…</p>
      ) : (
        <div aria-busy={q.isFetching}>
          <Table
            rows={q.data?.items ?? []}
            rowKey={(i) => i.id}
            caption={t('Collections worklist')}
            columns={[
              {
                header: t('Client'),
                cell: (i) => (
                  <>
                    <Link href={`/clients/${i.client_id}`}>{i.client_name || '—'}</Link>
                    <small className="cell-note">
                      <Link href={`/credits/${i.credit_id}`}>{credit(i)}</Link>
                    </small>
                  </>
                ),
              },
              {
                header: t('Due date'),
                cell: (i) => (
                  <>
                    {fmtDate(i.due_date)}
                    <small className="cell-note">{t('Installment {n}', { n: i.number })}</small>
                  </>
                ),
              },
              { header: t('Days late'), cell: (i) => i.days_late, numeric: true },
              {
                header: t('Balance'),
                cell: (i) => (
                  <>
                    <Money value={i.outstanding} />
                    <small className="cell-note">
                      {t('Punitory')} <Money value={i.punitory_posted + i.punitory_accrued} />
                    </small>
                  </>
                ),
                numeric: true,
              },
              { header: t('Collector'), cell: (i) => collectorName(i.collector_id, me, users) },
              {
                header: t('Latest promise'),
                cell: (i) =>
                  i.latest_promise ? (
                    <>
                      <Money value={i.latest_promise.amount} /> · {fmtDate(i.latest_promise.promised_for)}{' '}
                      <Status value={i.latest_promise.status} />
                    </>
                  ) : (
                    '—'
                  ),
              },
              {
                header: t('Last note'),
                cell: (i) =>
                  i.last_note ? (
                    <span className="cell-note">
                      {fmtDate(i.last_note.created_at)} · {t(i.last_note.channel)}: {i.last_note.outcome}
                    </span>
                  ) : (
                    '—'
                  ),
              },
              ...(canWrite
                ? [
                    {
                      header: t('Actions'),
                      cell: (i: Item) => (
                        <span className="row-actions">
                          <button
                            type="button"
                            aria-label={`${t('Record a promise')} · ${credit(i)}`}
                            onClick={() => setOpen({ kind: 'promise', item: i })}
                          >
                            {t('Promise')}
                          </button>
                          <button
                            type="button"
                            aria-label={`${t('Add a note')} · ${credit(i)}`}
                            onClick={() => setOpen({ kind: 'note', item: i })}
                          >
                            {t('Note')}
                          </button>
                          {isAdmin && (
                            <button
                              type="button"
                              aria-label={`${t('Assign a collector')} · ${credit(i)}`}
                              onClick={() => setOpen({ kind: 'collector', item: i })}
                            >
                              {t('Collector')}
                            </button>
                          )}
                        </span>
                      ),
                    },
                  ]
                : []),
            ]}
          />
        </div>
      )}
      {q.data && (
        <Pager offset={offset} limit={limit} total={q.data.total} count={q.data.items.length} onChange={setOffset} />
      )}
      {open?.kind === 'promise' && (
        <PromiseDialog
          creditId={open.item.credit_id}
          label={`${open.item.client_name} · ${credit(open.item)}`}
          amount={open.item.outstanding}
          onClose={() => setOpen(null)}
        />
      )}
      {open?.kind === 'note' && (
        <NoteDialog
          clientId={open.item.client_id}
          creditId={open.item.credit_id}
          label={`${open.item.client_name} · ${credit(open.item)}`}
          onClose={() => setOpen(null)}
        />
      )}
      {open?.kind === 'collector' && (
        <CollectorDialog
          creditId={open.item.credit_id}
          label={String(open.item.credit_sequential_id)}
          current={open.item.collector_id}
          onClose={() => setOpen(null)}
        />
      )}
    </>
  );
}
