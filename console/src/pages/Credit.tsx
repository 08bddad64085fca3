// A credit: its schedule (statuses, days late, parts, punitory), balance and cost, payments with
// their receipts, registering and reversing payments, the payoff, the PDFs, write-off, refinance
// and cancel (each confirmed in words), waivers of punitory or charges (admins), and the ledger.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import { ApiError, api, newKey, openPdf } from '../api.ts';
import { FormDialog } from '../dialog.tsx';
import { fmtDate, fmtInstant, fmtMoney, fmtPct, t } from '../i18n.ts';
import { type Me, useCan, useMe } from '../session.tsx';
import { Card, ConfirmButton, ErrorNote, Field, Money, Status, Table } from '../ui.tsx';
import type { Credit } from './Clients.tsx';
import { type Guarantor, GuarantorsSection } from './Guarantors.tsx';
import { METHODS } from './Payments.tsx';
import { type PayoffQuote, payoffLines } from '../payoff.ts';
import { partsShown, scheduleSums, usePlans } from './shared.ts';
import { CreditCollections, usePromises, useUsers } from './CollectionActions.tsx';

interface Installment {
  id: string;
  number: number;
  amount: number;
  due_date: string;
  status: string;
  overdue: boolean;
  days_late: number;
  principal: number;
  interest: number;
  /** the VAT of the interest, the insurance and the fees (docs/domain.md "Fees and charges") */
  vat: number;
  /** life insurance and admin fee, VAT aside (their VAT is in `vat`) */
  insurance: number;
  fees: number;
  punitory_posted: number;
  punitory_accrued: number;
  charges: number;
  waived: number;
  paid: number;
  outstanding: number;
}

interface LedgerEntry {
  id: string;
  type: string;
  origin: string;
  amount: number;
  effective_date: string;
  created_at: string;
  installment_id: string | null;
}

interface CreditDetail {
  credit: Credit & { written_off_at: string | null };
  installments: Installment[];
  ledgerEntries: LedgerEntry[];
  balance: Record<
    | 'principal'
    | 'interest'
    | 'vat'
    | 'insurance'
    | 'fees'
    | 'punitory_posted'
    | 'punitory_accrued'
    | 'charges'
    | 'waived'
    | 'paid'
    | 'outstanding',
    number
  >;
  cost: { tna: number; tea: number; cft_tea: number };
  guarantors: Guarantor[];
}

interface Payment {
  id: string;
  amount: number;
  paid_on: string;
  created_at: string;
  reversed_at: string | null;
  reversal_reason: string | null;
  method: string;
  channel: string | null;
  external_reference: string | null;
  /** payoff_close: the credit closed with no payment, amount = minus the refund (docs/domain.md, "Early payoff") */
  kind?: 'payment' | 'payoff_close';
}

/** A waiver as GET /api/credits/{id}/waivers gives it (newest first). */
interface Waiver {
  id: string;
  installment_id: string;
  installment_number: number;
  kind: 'punitory' | 'charge';
  amount: number;
  reason: string;
  created_by: string;
  created_at: string;
}

/** Today in the business's timezone, as YYYY-MM-DD. */
export function today(me: Me | null | undefined): string {
  return new Date().toLocaleDateString('en-CA', { timeZone: me?.business?.timezone ?? undefined });
}

export function CreditPage() {
  const { id } = useParams<{ id: string }>();
  const qc = useQueryClient();
  const canWrite = useCan('employee');
  const isAdmin = useCan('admin');
  const [waiving, setWaiving] = useState<Installment | null>(null);
  // the refund of a close made on this page, said until the page is left
  const [refunded, setRefunded] = useState<number | null>(null);
  const waiveButton = useRef<HTMLButtonElement | null>(null);
  const [, navigate] = useLocation();
  const key = ['credit', id];
  const q = useQuery({ queryKey: key, queryFn: () => api<CreditDetail>(`/api/credits/${id}`) });
  const payments = useQuery({
    queryKey: ['payments', id],
    queryFn: () => api<Payment[]>(`/api/credits/${id}/payments`),
  });
  const waiverList = useQuery({
    queryKey: ['waivers', id],
    queryFn: () => api<Waiver[]>(`/api/credits/${id}/waivers`),
  });
  // what the promises section below shows, asked for now beside the credit rather than once it came
  usePromises(id);
  useUsers(isAdmin);
  const refresh = async () => {
    await Promise.all([
      qc.invalidateQueries({ queryKey: key }),
      qc.invalidateQueries({ queryKey: ['payments', id] }),
      qc.invalidateQueries({ queryKey: ['waivers', id] }),
      qc.invalidateQueries({ queryKey: ['payoff', id] }),
      qc.invalidateQueries({ queryKey: ['summary'] }),
    ]);
  };
  if (q.error) return <ErrorNote error={q.error} />;
  if (!q.data) return <p aria-busy="true">{t('Loading')}…</p>;
  const { credit, installments, balance, cost, ledgerEntries } = q.data;
  const open = credit.status === 'active';
  // a waiver is refused on refinanced and cancelled credits (docs/domain.md, "Fees and charges")
  const canWaive = isAdmin && (open || credit.status === 'written_off');
  // the optional parts: a column only when some installment of the credit has it
  const has = partsShown(installments);
  // the column only when some installment has punitory or charges to waive
  const someWaivable = canWaive && installments.some((i) => waivable(i).punitory > 0 || waivable(i).charge > 0);
  const waivers = waiverList.data ?? [];
  return (
    <>
      <div className="page-head">
        <h1>
          {t('Credit #{n}', { n: credit.sequential_id })} <Status value={credit.status} of="credit" />
        </h1>
        <div className="actions">
          <Link href={`/clients/${credit.client_id}`} className="button">
            {t('Client')}
          </Link>
          <button type="button" onClick={() => openPdf(`/api/credits/${id}/statement`)}>
            {t('Statement')} (PDF)
          </button>
          {/* plain links: the session cookie goes with them, and the server names the file it saves */}
          <a className="button" href={`/api/credits/${id}/documents/contract`} download>
            {t('Contract')} (PDF)
          </a>
          <a className="button" href={`/api/credits/${id}/documents/promissory-note`} download>
            {t('Promissory note')} (PDF)
          </a>
        </div>
      </div>
      {refunded !== null && (
        <p className="notice" role="status">
          {t('The credit is closed. Hand back to the client: {amount}.', { amount: fmtMoney(refunded) })}
        </p>
      )}
      <div className="cards">
        <Card label={t('Balance')}>
          <Money value={balance.outstanding} />
        </Card>
        <Card label={t('Principal')}>
          <Money value={balance.principal} />
        </Card>
        <Card label={t('Interest')}>
          <Money value={balance.interest} />
        </Card>
        {balance.insurance > 0 && (
          <Card label={t('Insurance')}>
            <Money value={balance.insurance} />
          </Card>
        )}
        {balance.fees > 0 && (
          <Card label={t('Admin fees')}>
            <Money value={balance.fees} />
          </Card>
        )}
        <Card label={t('Punitory')}>
          <Money value={balance.punitory_posted + balance.punitory_accrued} />
        </Card>
        {balance.charges > 0 && (
          <Card label={t('Collection charges')}>
            <Money value={balance.charges} />
          </Card>
        )}
        {balance.waived > 0 && (
          <Card label={t('Waived')}>
            <Money value={-balance.waived} />
          </Card>
        )}
        <Card label={t('Paid')}>
          <Money value={balance.paid} />
        </Card>
        <Card label="TNA">{fmtPct(cost.tna)}</Card>
        <Card label="TEA">{fmtPct(cost.tea)}</Card>
        <Card label="CFT">
          <strong>{fmtPct(cost.cft_tea)}</strong>
        </Card>
      </div>
      <section aria-labelledby="schedule">
        <h2 id="schedule">{t('Installments')}</h2>
        <Table
          rows={installments}
          rowKey={(i) => i.id}
          columns={[
            { header: '#', cell: (i) => i.number, numeric: true },
            { header: t('Due date'), cell: (i) => fmtDate(i.due_date) },
            {
              header: t('Status'),
              cell: (i) => <Status value={i.overdue && i.status !== 'paid' ? 'overdue' : i.status} />,
            },
            { header: t('Days late'), cell: (i) => i.days_late, numeric: true },
            // left to right the row adds up: principal + interest + insurance + fees + VAT = the
            // installment; + punitory + charges − waived − paid = the balance (an optional column
            // only when some installment has it)
            { header: t('Principal'), cell: (i) => <Money value={i.principal} />, numeric: true },
            { header: t('Interest'), cell: (i) => <Money value={i.interest} />, numeric: true },
            ...(has.insurance
              ? [{ header: t('Insurance'), cell: (i: Installment) => <Money value={i.insurance} />, numeric: true }]
              : []),
            ...(has.fees
              ? [{ header: t('Admin fees'), cell: (i: Installment) => <Money value={i.fees} />, numeric: true }]
              : []),
            { header: t('VAT'), cell: (i) => <Money value={i.vat} />, numeric: true },
            { header: t('Installment'), cell: (i) => <Money value={i.amount} />, numeric: true },
            {
              header: t('Punitory'),
              cell: (i) => <Money value={i.punitory_posted + i.punitory_accrued} />,
              numeric: true,
            },
            ...(has.charges
              ? [{ header: t('Charges'), cell: (i: Installment) => <Money value={i.charges} />, numeric: true }]
              : []),
            ...(has.waived
              ? [{ header: t('Waived'), cell: (i: Installment) => <Money value={-i.waived} />, numeric: true }]
              : []),
            { header: t('Paid'), cell: (i) => <Money value={i.paid} />, numeric: true },
            { header: t('Balance'), cell: (i) => <Money value={i.outstanding} />, numeric: true },
            ...(someWaivable
              ? [
                  {
                    header: t('Waive'),
                    cell: (i: Installment) => {
                      const w = waivable(i);
                      return w.punitory > 0 || w.charge > 0 ? (
                        <button
                          type="button"
                          aria-label={t('Waive on installment {n}', { n: i.number })}
                          onClick={(e) => {
                            waiveButton.current = e.currentTarget;
                            setWaiving(i);
                          }}
                        >
                          {t('Waive')}
                        </button>
                      ) : null;
                    },
                  },
                ]
              : []),
          ]}
        />
        <p className="muted">{scheduleSums(has, true)}</p>
      </section>
      {waiving && (
        <WaiverDialog
          creditId={id}
          installment={waiving}
          onClose={() => {
            setWaiving(null);
            // back to the button that opened it (when it is still there)
            requestAnimationFrame(() => {
              if (waiveButton.current?.isConnected) waiveButton.current.focus();
            });
          }}
          onDone={refresh}
        />
      )}
      <ErrorNote error={waiverList.error} />
      {waivers.length > 0 && (
        <section aria-labelledby="waivers">
          <h2 id="waivers">{t('Waivers')}</h2>
          <Table
            rows={waivers}
            rowKey={(w) => w.id}
            columns={[
              { header: t('Recorded'), cell: (w) => fmtInstant(w.created_at) },
              { header: t('Installment'), cell: (w) => w.installment_number, numeric: true },
              {
                header: t('What was waived'),
                cell: (w) => t(w.kind === 'punitory' ? 'Punitory' : 'Collection charges'),
              },
              { header: t('Amount waived'), cell: (w) => <Money value={-w.amount} />, numeric: true },
              { header: t('Reason'), cell: (w) => w.reason },
            ]}
          />
        </section>
      )}
      {canWrite && open && (
        <PaymentForm creditId={id} installments={installments} payments={payments.data ?? []} onDone={refresh} />
      )}
      <CreditCollections credit={credit} />
      <section aria-labelledby="payments">
        <h2 id="payments">{t('Payments')}</h2>
        <ErrorNote error={payments.error} />
        <Table
          rows={payments.data ?? []}
          rowKey={(p) => p.id}
          columns={[
            { header: t('Date'), cell: (p) => fmtDate(p.paid_on) },
            { header: t('Amount'), cell: (p) => <Money value={p.amount} />, numeric: true },
            { header: t('Method'), cell: (p) => t(`method_${p.method}`) },
            {
              header: t('Reference'),
              cell: (p) => [p.channel, p.external_reference].filter(Boolean).join(' · ') || '—',
            },
            {
              header: t('Status'),
              cell: (p) =>
                p.reversed_at
                  ? `${t('Reversed')}: ${p.reversal_reason ?? ''}`
                  : p.kind === 'payoff_close'
                    ? t('Closed with a refund of {amount}', { amount: fmtMoney(-p.amount) })
                    : t('Paid'),
            },
            {
              header: t('Receipt'),
              cell: (p) => (
                <span className="actions">
                  <button type="button" onClick={() => openPdf(`/api/credits/${id}/payments/${p.id}/receipt`)}>
                    {t('Receipt')} A4
                  </button>
                  <button
                    type="button"
                    title={t('for an 80 mm roll printer')}
                    onClick={() => openPdf(`/api/credits/${id}/payments/${p.id}/receipt?paper=80mm`)}
                  >
                    {t('Receipt')} 80 mm
                  </button>
                </span>
              ),
            },
            ...(canWrite
              ? [
                  {
                    header: t('Reverse'),
                    cell: (p: Payment) =>
                      p.reversed_at ? null : (
                        <ConfirmButton
                          label={t('Reverse')}
                          title={t('Reverse this payment')}
                          text={t('The payment stays in the history as reversed and its amount is owed again.')}
                          reason
                          danger
                          onConfirm={async (reason) => {
                            await api(`/api/credits/${id}/payments/${p.id}/reverse`, {
                              body: { reason },
                              idempotencyKey: newKey(),
                            });
                            await refresh();
                          }}
                        />
                      ),
                  },
                ]
              : []),
          ]}
        />
      </section>
      <GuarantorsSection
        creditId={id}
        borrowerId={credit.client_id}
        guarantors={q.data.guarantors ?? []}
        canWrite={canWrite}
        onDone={refresh}
      />
      {open && (
        <PayoffBox creditId={id} canWrite={canWrite} onDone={refresh} onClosed={(refund) => setRefunded(refund)} />
      )}
      {canWrite && (open || credit.status === 'written_off') && (
        <section aria-labelledby="manage">
          <h2 id="manage">{t('More')}</h2>
          <div className="actions">
            {open && (
              <ConfirmButton
                label={t('Write off')}
                text={t('Write the credit off: it leaves the active portfolio and its balance is kept as written off.')}
                reason
                danger
                onConfirm={async (reason) => {
                  await api(`/api/credits/${id}/write-off`, { body: { reason } });
                  await refresh();
                }}
              />
            )}
            {open && <RefinanceButton creditId={id} onDone={(newId) => navigate(`/credits/${newId}`)} />}
            {open && (
              <ConfirmButton
                label={t('Cancel credit')}
                text={t('Cancel the credit: only possible while no payment exists; it becomes inactive.')}
                danger
                onConfirm={async () => {
                  await api(`/api/credits/${id}/cancel`, { method: 'POST' });
                  await refresh();
                }}
              />
            )}
          </div>
        </section>
      )}
      <section aria-labelledby="ledger">
        <h2 id="ledger">{t('Ledger')}</h2>
        <Table
          rows={ledgerEntries}
          rowKey={(e) => e.id}
          columns={[
            { header: t('Effective date'), cell: (e) => fmtDate(e.effective_date) },
            { header: t('Type'), cell: (e) => t(`entry_${e.type}`) },
            { header: t('Origin'), cell: (e) => t(`origin_${e.origin}`) },
            { header: t('Amount'), cell: (e) => <Money value={e.amount} />, numeric: true },
            { header: t('Created'), cell: (e) => fmtInstant(e.created_at) },
          ]}
        />
      </section>
    </>
  );
}

/**
 * What an installment still owes of punitory and of charges, as the API's figures let the console
 * tell: a payment pays the charges first, then the punitory (docs/domain.md, "Payments and
 * allocation"), and the accrued punitory is posted before a waiver. Exact unless the installment
 * has both charges and waivers already (its `waived` does not say of which); then the API's 422
 * says the most, under the field.
 */
export function waivable(i: Installment): { punitory: number; charge: number } {
  const cents = (v: number) => Math.round(v * 100);
  const punitory = cents(i.punitory_posted + i.punitory_accrued);
  const charges = cents(i.charges ?? 0);
  const extras = Math.max(0, punitory + charges - cents(i.waived ?? 0) - cents(i.paid));
  const charge = Math.max(0, Math.min(extras, charges - cents(i.paid)));
  return { punitory: Math.min(punitory, extras - charge) / 100, charge: charge / 100 };
}

function WaiverDialog({
  creditId,
  installment,
  onClose,
  onDone,
}: {
  creditId: string;
  installment: Installment;
  onClose: () => void;
  onDone: () => Promise<void>;
}) {
  const most = waivable(installment);
  const kinds = (['punitory', 'charge'] as const).filter((k) => most[k] > 0);
  const [kind, setKind] = useState<'punitory' | 'charge'>(kinds[0] ?? 'punitory');
  const [amount, setAmount] = useState(String(most[kind]));
  const [reason, setReason] = useState('');
  const [key] = useState(newKey);
  const shown = Number(amount) > 0 ? fmtMoney(Number(amount)) : '—';
  return (
    <FormDialog
      title={t('Waive on installment {n}', { n: installment.number })}
      text={t(
        kind === 'punitory'
          ? '{amount} of punitory of installment {n} will no longer be owed: the balance drops by that amount. It is not a payment: no cash comes in, and the waiver stays in the ledger with its reason.'
          : '{amount} of collection charges of installment {n} will no longer be owed: the balance drops by that amount. It is not a payment: no cash comes in, and the waiver stays in the ledger with its reason.',
        { amount: shown, n: installment.number },
      )}
      submitLabel={t('Waive')}
      onCancel={onClose}
      onSubmit={async () => {
        await api(`/api/credits/${creditId}/waivers`, {
          idempotencyKey: key,
          body: { installment_id: installment.id, kind, amount: Number(amount), reason: reason.trim() },
        });
        await onDone();
        onClose();
      }}
    >
      {(error) => (
        <>
          <Field
            label={t('What to waive')}
            name="kind"
            value={kind}
            onChange={(v) => {
              const k = v as 'punitory' | 'charge';
              setKind(k);
              setAmount(String(most[k]));
            }}
            options={kinds.map((k) => ({
              value: k,
              label: `${t(k === 'punitory' ? 'Punitory' : 'Collection charges')} (${fmtMoney(most[k])})`,
            }))}
            error={error}
          />
          <Field
            label={t('Amount')}
            name="amount"
            type="number"
            inputMode="decimal"
            step="0.01"
            min="0.01"
            required
            value={amount}
            onChange={setAmount}
            hint={`${t('Waivable')}: ${fmtMoney(most[kind])}`}
            error={error}
          />
          <Field
            label={t('Reason')}
            name="reason"
            multiline
            required
            value={reason}
            onChange={setReason}
            error={error}
          />
        </>
      )}
    </FormDialog>
  );
}

function PaymentForm({
  creditId,
  installments,
  payments,
  onDone,
}: {
  creditId: string;
  installments: Installment[];
  payments: Payment[];
  onDone: () => Promise<void>;
}) {
  const me = useMe().data;
  const day = today(me);
  // what is due today: every unpaid installment due by today (with its punitory); else the next one
  const unpaid = installments.filter((i) => i.outstanding > 0);
  const dueNow = unpaid.filter((i) => i.due_date <= day).reduce((s, i) => s + i.outstanding, 0);
  const due = Math.round((dueNow || (unpaid[0]?.outstanding ?? 0)) * 100) / 100;
  const [amount, setAmount] = useState(String(due));
  const [paidOn, setPaidOn] = useState(day);
  const [method, setMethod] = useState('cash');
  const [channel, setChannel] = useState('');
  const [reference, setReference] = useState('');
  // one key for this form: a double click or a retry pays once; a new one after each payment
  const [key, setKey] = useState(newKey);
  useEffect(() => setAmount(String(due)), [due]);
  // a second click before the first answer sends nothing (and the key would make it a repeat anyway)
  const sending = useRef(false);
  const pay = useMutation({
    mutationFn: () =>
      api(`/api/credits/${creditId}/payments`, {
        idempotencyKey: key,
        body: {
          amount: Number(amount),
          paid_on: paidOn,
          method,
          ...(channel.trim() ? { channel: channel.trim() } : {}),
          ...(reference.trim() ? { external_reference: reference.trim() } : {}),
        },
      }),
    onSuccess: async () => {
      setKey(newKey());
      setReference('');
      await onDone();
    },
  });
  const refused = pay.error instanceof ApiError ? pay.error : null;
  // the channel's reference was paid before: said in words beside the form, with the payment that
  // holds it, and the reference field marked in Spanish rather than with the API's own words
  const duplicate = refused?.code === 'duplicate_payment' ? refused : null;
  const holder = duplicate?.fieldError('external_reference')?.match(/[0-9a-f-]{36}/)?.[0];
  const heldBy = payments.find((p) => p.id === holder);
  const error = duplicate
    ? new ApiError(duplicate.status, duplicate.code, duplicate.message, [
        { path: '/external_reference', message: t('already used by another payment') },
      ])
    : refused;
  return (
    <section aria-labelledby="pay">
      <h2 id="pay">{t('Register a payment')}</h2>
      <form
        className="grid-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (sending.current) return;
          sending.current = true;
          pay.mutate(undefined, {
            onSettled: () => {
              sending.current = false;
            },
          });
        }}
      >
        <Field
          label={t('Amount')}
          name="amount"
          type="number"
          inputMode="decimal"
          step="0.01"
          min="0.01"
          value={amount}
          onChange={setAmount}
          hint={`${t('Amount due today')}: ${fmtMoney(due)}`}
          required
          error={error}
        />
        <Field
          label={t('Date')}
          name="paid_on"
          type="date"
          value={paidOn}
          onChange={setPaidOn}
          required
          error={error}
        />
        <Field
          label={t('Method')}
          name="method"
          value={method}
          onChange={setMethod}
          options={METHODS.map((m) => ({ value: m, label: t(`method_${m}`) }))}
          error={error}
        />
        <Field
          label={t('Channel')}
          name="channel"
          value={channel}
          onChange={setChannel}
          hint={t('The network or bank it came through, e.g. Rapipago')}
          error={error}
        />
        <Field
          label={t('Reference')}
          name="external_reference"
          value={reference}
          onChange={setReference}
          hint={t("The channel's own number for this payment")}
          error={error}
        />
        {duplicate ? (
          <div className="error duplicate" role="alert">
            <strong>{t('This payment was already registered.')}</strong>{' '}
            {t('The channel {channel} already has a payment with reference {reference}: it is not paid twice.', {
              channel: channel.trim() || '—',
              reference: reference.trim(),
            })}
            {holder
              ? ` (${heldBy ? t('the payment of {amount} on {date}, listed below', { amount: fmtMoney(heldBy.amount), date: fmtDate(heldBy.paid_on) }) : `${t('payment')} ${holder}`})`
              : ''}
          </div>
        ) : (
          <ErrorNote error={pay.error} />
        )}
        <div className="actions">
          <button type="submit" className="primary" disabled={pay.isPending}>
            {t('Pay')}
          </button>
        </div>
      </form>
    </section>
  );
}

function PayoffBox({
  creditId,
  canWrite,
  onDone,
  onClosed,
}: {
  creditId: string;
  canWrite: boolean;
  onDone: () => Promise<void>;
  /** the credit was closed without a payment: the refund to hand back */
  onClosed: (refund: number) => void;
}) {
  const [asked, setAsked] = useState(false);
  const q = useQuery({
    queryKey: ['payoff', creditId],
    queryFn: () => api<PayoffQuote>(`/api/credits/${creditId}/payoff`),
    enabled: asked,
  });
  const [key] = useState(newKey);
  const lines = q.data ? payoffLines(q.data) : null;
  return (
    <section aria-labelledby="payoff">
      <h2 id="payoff">{t('Payoff quote')}</h2>
      {!asked && (
        <button type="button" onClick={() => setAsked(true)}>
          {t('Quote')}
        </button>
      )}
      <ErrorNote error={q.error} />
      {q.data && lines && (
        <>
          <div className="cards">
            <Card label={`${t('Total')} (${fmtDate(q.data.as_of)})`}>
              <Money value={q.data.amount} />
            </Card>
            {/* each part as it is owed: a prepayment beyond the later installments is not a negative
                principal but a line taken off, and what is left of it is to be handed back */}
            {lines.parts.map((p) => (
              <Card key={p.key} label={t(p.label)}>
                <Money value={p.amount} />
              </Card>
            ))}
            {lines.advance > 0 && (
              <Card label={t('Paid in advance')}>
                <Money value={-lines.advance} />
              </Card>
            )}
            {lines.rebate > 0 && (
              <Card label={t('Rebate')}>
                <Money value={lines.rebate} />
              </Card>
            )}
          </div>
          {lines.refund > 0 && (
            <p className="payoff-refund">
              {t('To refund to the client')} <Money value={lines.refund} />
            </p>
          )}
          {q.data.amount === 0 && q.data.refundable > 0 && (
            <p className="muted">
              {t('What was paid exceeds what settles the credit by {amount}: nothing is left to pay.', {
                amount: fmtMoney(q.data.refundable),
              })}
            </p>
          )}
          {canWrite && q.data.amount === 0 && q.data.refundable > 0 && (
            <ConfirmButton
              label={t('Close and refund')}
              title={t('Close the credit and refund {amount}', { amount: fmtMoney(q.data.refundable) })}
              text={t(
                'The credit closes as of {date}: {rebate} of interest not owed is written off (a rebate, not cash) and {amount} paid beyond what settles it is to be handed back to the client. No payment is registered; the close is listed among the payments.',
                {
                  date: fmtDate(q.data.as_of),
                  rebate: fmtMoney(q.data.breakdown.rebate ?? 0),
                  amount: fmtMoney(q.data.refundable),
                },
              )}
              onConfirm={async () => {
                const r = await api<{ refund: number }>(`/api/credits/${creditId}/payoff`, {
                  idempotencyKey: key,
                  body: { as_of: q.data.as_of },
                });
                onClosed(r.refund);
                await onDone();
              }}
            />
          )}
          {canWrite && q.data.amount > 0 && (
            <ConfirmButton
              label={t('Pay it off')}
              text={`${t('Pay it off')}: ${fmtMoney(q.data.amount)}`}
              onConfirm={async () => {
                await api(`/api/credits/${creditId}/payments`, {
                  idempotencyKey: key,
                  body: { amount: q.data.amount, paid_on: q.data.as_of },
                });
                await onDone();
              }}
            />
          )}
        </>
      )}
    </section>
  );
}

function RefinanceButton({ creditId, onDone }: { creditId: string; onDone: (id: string) => void }) {
  const plans = usePlans().filter((p) => p.is_active);
  const [plan, setPlan] = useState('');
  return (
    <ConfirmButton
      label={t('Refinance')}
      text={t('Refinance: the balance moves into a new credit on the chosen plan; this one closes as refinanced.')}
      onConfirm={async () => {
        const d = await api<{ credit: { id: string } }>(`/api/credits/${creditId}/refinance`, {
          body: { credit_config_id: plan || plans[0]?.id },
        });
        onDone(d.credit.id);
      }}
    >
      <Field
        label={t('Plan')}
        name="credit_config_id"
        value={plan || plans[0]?.id || ''}
        onChange={setPlan}
        options={plans.map((p) => ({ value: p.id, label: p.name }))}
      />
    </ConfirmButton>
  );
}
