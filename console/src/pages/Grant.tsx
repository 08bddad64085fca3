// Granting a credit: plan, amount and start date, the plan's simulation redrawn as the figures
// change (each installment's parts, TNA, TEA and CFT), then grant with one Idempotency-Key for
// the form (a double click grants once).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useLocation, useParams } from 'wouter';
import { ApiError, api, newKey } from '../api.ts';
import { fmtDate, fmtPct, t } from '../i18n.ts';
import { Card, ErrorNote, Field, Money, Table } from '../ui.tsx';
import { type Client, clientName } from './Clients.tsx';
import { partsShown, scheduleSums, useBranches, usePlans } from './shared.ts';

export interface Simulation {
  installments: {
    number: number;
    amount: number;
    due_date: string;
    principal: number;
    interest: number;
    /** the VAT of the interest, the insurance and the fees */
    vat: number;
    /** life insurance and admin fee, VAT aside (their VAT is in `vat`) */
    insurance?: number;
    fees?: number;
  }[];
  total: number;
  cost: { tna: number; tea: number; cft_tea: number };
  /** the plan's fees on this amount (docs/api.md "Simulate a schedule") */
  fees?: { type: string; amount: number; vat: number; financed: boolean }[];
  /** the cash the client is handed */
  disbursed?: number;
}

type Row = Simulation['installments'][number];

/** The simulation of a plan for an amount, asked again (debounced) as the inputs change. */
export function useSimulation(planId: string, amount: string, startDate: string) {
  const [args, setArgs] = useState({ planId, amount, startDate });
  useEffect(() => {
    const h = setTimeout(() => setArgs({ planId, amount, startDate }), 300);
    return () => clearTimeout(h);
  }, [planId, amount, startDate]);
  const n = Number(args.amount);
  return useQuery({
    queryKey: ['simulate', args],
    enabled: !!args.planId && n > 0,
    queryFn: () =>
      api<Simulation>(`/api/credit-configs/${args.planId}/simulate`, {
        body: { amount: n, ...(args.startDate ? { start_date: args.startDate } : {}) },
      }),
    retry: false,
  });
}

export function SimulationView({ sim }: { sim: Simulation }) {
  // insurance and admin fees: a column each only when some installment carries it
  const has = partsShown(sim.installments);
  return (
    <>
      <div className="cards">
        <Card label={t('TNA (nominal annual rate)')}>{fmtPct(sim.cost.tna)}</Card>
        <Card label={t('TEA (effective annual rate)')}>{fmtPct(sim.cost.tea)}</Card>
        <Card label={t('CFT (total financial cost, effective annual)')}>
          <strong>{fmtPct(sim.cost.cft_tea)}</strong>
        </Card>
        <Card label={t('Total')}>
          <Money value={sim.total} />
        </Card>
        {sim.disbursed !== undefined && (
          <Card label={t('Disbursed (cash handed over)')}>
            <strong>
              <Money value={sim.disbursed} />
            </strong>
          </Card>
        )}
      </div>
      {sim.fees && sim.fees.length > 0 && (
        <Table
          caption={t('Fees')}
          rows={sim.fees}
          rowKey={(f) => f.type}
          columns={[
            { header: t('Fee'), cell: (f) => t(`fee_${f.type}`) },
            { header: t('Amount'), cell: (f) => <Money value={f.amount} />, numeric: true },
            { header: t('VAT'), cell: (f) => <Money value={f.vat} />, numeric: true },
            { header: t('Total'), cell: (f) => <Money value={f.amount + f.vat} />, numeric: true },
            {
              header: t('How it is charged'),
              cell: (f) =>
                f.type !== 'origination'
                  ? t('in every installment')
                  : f.financed
                    ? t('financed: added to the installments')
                    : t('deducted from the cash handed over'),
            },
          ]}
        />
      )}
      <Table
        caption={t('Installment parts')}
        rows={sim.installments}
        rowKey={(i) => String(i.number)}
        columns={[
          { header: '#', cell: (i) => i.number, numeric: true },
          { header: t('Due date'), cell: (i) => fmtDate(i.due_date) },
          { header: t('Principal'), cell: (i) => <Money value={i.principal} />, numeric: true },
          { header: t('Interest'), cell: (i) => <Money value={i.interest} />, numeric: true },
          ...(has.insurance
            ? [{ header: t('Insurance'), cell: (i: Row) => <Money value={i.insurance ?? 0} />, numeric: true }]
            : []),
          ...(has.fees
            ? [{ header: t('Admin fees'), cell: (i: Row) => <Money value={i.fees ?? 0} />, numeric: true }]
            : []),
          { header: t('VAT'), cell: (i) => <Money value={i.vat} />, numeric: true },
          { header: t('Installment'), cell: (i) => <Money value={i.amount} />, numeric: true },
        ]}
      />
      <p className="muted">{scheduleSums(has, false)}</p>
    </>
  );
}

export function Grant() {
  const { id } = useParams<{ id: string }>();
  const [, navigate] = useLocation();
  const qc = useQueryClient();
  const plans = usePlans().filter((p) => p.is_active);
  const branches = useBranches().filter((b) => !b.deleted_at);
  const [plan, setPlan] = useState('');
  const [amount, setAmount] = useState('');
  const [start, setStart] = useState('');
  const [branch, setBranch] = useState('');
  const [key] = useState(newKey);
  const [applyKey] = useState(newKey);
  useEffect(() => {
    if (!plan && plans[0]) setPlan(plans[0].id);
  }, [plan, plans]);
  const sim = useSimulation(plan, amount, start);
  // the heading names who the credit is for (the client page's own query: no second request)
  const client = useQuery({
    queryKey: ['client', id],
    queryFn: () => api<{ client: Client }>(`/api/clients/${id}`),
  }).data?.client;
  const grant = useMutation({
    mutationFn: () =>
      api<{ credit: { id: string } }>(`/api/clients/${id}/credits`, {
        idempotencyKey: key,
        body: {
          credit_config_id: plan,
          amount: Number(amount),
          ...(start ? { start_date: start } : {}),
          ...(branch ? { branch_id: branch } : {}),
        },
      }),
    onSuccess: (d) => {
      qc.invalidateQueries({ queryKey: ['client', id] });
      navigate(`/credits/${d.credit.id}`);
    },
  });
  const apply = useMutation({
    mutationFn: () =>
      api<{ id: string }>(`/api/clients/${id}/applications`, {
        idempotencyKey: applyKey,
        body: {
          credit_config_id: plan,
          amount: Number(amount),
          ...(start ? { start_date: start } : {}),
          ...(branch ? { branch_id: branch } : {}),
        },
      }),
    onSuccess: (a) => {
      qc.invalidateQueries({ queryKey: ['/api/applications'] });
      navigate(`/applications/${a.id}`);
    },
  });
  const error = (grant.error ?? sim.error) instanceof ApiError ? ((grant.error ?? sim.error) as ApiError) : null;
  return (
    <>
      <h1>
        {t('Grant a credit')}
        {client ? ` · ${clientName(client)}` : ''}
      </h1>
      <form
        className="grid-form"
        onSubmit={(e) => {
          e.preventDefault();
          grant.mutate();
        }}
      >
        <Field
          label={t('Plan')}
          name="credit_config_id"
          value={plan}
          onChange={setPlan}
          required
          options={plans.map((p) => ({ value: p.id, label: p.name }))}
          error={error}
        />
        <Field
          label={t('Amount')}
          name="amount"
          type="number"
          inputMode="decimal"
          step="0.01"
          min="0"
          value={amount}
          onChange={setAmount}
          required
          error={error}
        />
        <Field label={t('Start date')} name="start_date" type="date" value={start} onChange={setStart} error={error} />
        <Field
          label={t('Branch')}
          name="branch_id"
          value={branch}
          onChange={setBranch}
          options={[{ value: '', label: '—' }, ...branches.map((b) => ({ value: b.id, label: b.name }))]}
          error={error}
        />
        <ErrorNote error={grant.error ?? sim.error} />
        {grant.error instanceof ApiError && grant.error.code === 'approval_required' && (
          // the business grants through applications (docs/applications.md): the same figures become one
          <div className="actions">
            <button type="button" className="primary" disabled={apply.isPending} onClick={() => apply.mutate()}>
              {t('Submit as an application')}
            </button>
            <ErrorNote error={apply.error} />
          </div>
        )}
        <div className="actions">
          <button type="submit" className="primary" disabled={grant.isPending || !sim.data}>
            {t('Grant')}
          </button>
        </div>
      </form>
      <section aria-labelledby="sim" aria-live="polite">
        <h2 id="sim">{t('Simulation')}</h2>
        {sim.data ? (
          <SimulationView sim={sim.data} />
        ) : (
          <p className="muted">{t('Choose a plan and an amount to see the installments.')}</p>
        )}
      </section>
    </>
  );
}
