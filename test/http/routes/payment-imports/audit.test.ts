// The audit trail of an imported payment (docs/payments.md, "Importing payments"): the batch's
// set-based read and one-statement write leave the same audit rows, table by table, as the same
// payments posted one by one through POST /api/credits/{id}/payments: the payments and ledger
// rows inserted, the installments and the credit whose status moved, with the same actor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { build, json, settableClock, type Harness } from '../../../helpers/app.ts';
import { P35, client, credit, pay, payoff, plan } from '../../../helpers/book-in-cents.ts';

async function finished(h: Harness, id: string): Promise<any> {
  for (let k = 0; k < 400; k++) {
    const r = json(await h.get(`/api/payment-imports/${id}`));
    if (r.status !== 'running') return r;
    await new Promise((ok) => setTimeout(ok, 25));
  }
  throw new Error('the import did not finish');
}

/** Every audit row of a table, oldest first (cursor pages). */
async function auditOf(h: Harness, table: string): Promise<any[]> {
  const out: any[] = [];
  let url = `/api/logs?table_name=${table}&limit=100`;
  for (;;) {
    const r = await h.get(url);
    assert.equal(r.statusCode, 200, r.body);
    const page = json(r);
    out.push(...page.items);
    if (!page.next_cursor) break;
    url = `/api/logs?table_name=${table}&limit=100&cursor=${encodeURIComponent(page.next_cursor)}`;
  }
  return out.reverse();
}

/**
 * A credit's audit rows of a table with what differs between two twin credits taken out: ids (the
 * record's, its credit's, its payment's) and instants are dropped, an installment is named by its
 * number; sorted, since the rows one statement writes share their instant and come in any order.
 */
function shape(rows: any[], creditId: string, numberOf: Map<string, number>, references: Map<string, string>) {
  const mine = rows.filter((r) => (r.new_data ?? r.old_data)?.credit_id === creditId || r.record_id === creditId);
  const data = (d: any) => {
    if (!d) return d;
    const {
      id,
      credit_id: _c,
      client_id: _cl,
      sequential_id: _s,
      created_at: _ca,
      updated_at: _u,
      installment_id,
      payment_id,
      external_reference,
      ...rest
    } = d;
    return {
      ...rest,
      ...(numberOf.has(id) ? { installment: numberOf.get(id) } : {}),
      ...(installment_id !== undefined ? { installment: numberOf.get(installment_id) } : {}),
      ...(payment_id !== undefined ? { payment: payment_id === null ? null : 'the payment' } : {}),
      ...(external_reference !== undefined
        ? { external_reference: references.get(external_reference) ?? external_reference }
        : {}),
    };
  };
  return mine
    .map((r) => ({
      action: r.action,
      actor: r.actor,
      branch_id: r.branch_id,
      old: data(r.old_data),
      new: data(r.new_data),
    }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

test('an imported payment leaves the audit rows the same payment posted through the API leaves', async (t) => {
  const h = await build(t, { clock: settableClock('2024-04-15') });
  const p = await plan(h, P35);
  const credits: any[] = [];
  for (let k = 0; k < 4; k++) {
    const c = await client(h);
    credits.push(await credit(h, c.id, { credit_config_id: p.id, amount: 1000, start_date: '2024-01-01' }));
  }
  // two pairs of twins, the first of each paid through the API, the second by the import: 500 on
  // 2024-02-10 (installment 1 late 10 days, 22.50 of punitory posted, paid with it, the rest toward
  // installment 2), and the payoff of 2024-03-05 (its punitory posted, its rebate written off),
  // which closes the credit. One line a credit: two lines of one credit in a batch update a
  // status once, to the last (docs/payments.md)
  const [partialApi, partialImport, payoffApi, payoffImport] = credits as [any, any, any, any];
  const quote = await payoff(h, payoffApi.credit.id, '2024-03-05');
  assert.ok(quote.breakdown.rebate > 0, `the payoff writes a rebate off: ${JSON.stringify(quote)}`);
  await pay(h, partialApi.credit.id, {
    amount: 500,
    paid_on: '2024-02-10',
    channel: 'Banco',
    external_reference: 'A1',
  });
  await pay(h, payoffApi.credit.id, {
    amount: quote.amount,
    paid_on: '2024-03-05',
    channel: 'Banco',
    external_reference: 'A2',
  });
  const file = [
    'credit,amount,paid_on,method,channel,external_reference',
    `${partialImport.credit.sequential_id},500,2024-02-10,,Banco,I1`,
    `${payoffImport.credit.id},${quote.amount},2024-03-05,,Banco,I2`,
  ].join('\n');
  const res = await h.req({
    method: 'POST',
    url: '/api/payment-imports',
    payload: file,
    headers: { 'content-type': 'text/csv' },
  });
  assert.equal(res.statusCode, 202, res.body);
  const imp = await finished(h, json(res).id);
  assert.deepEqual([imp.status, imp.accepted, imp.rejected, imp.duplicates], ['done', 2, 0, 0], JSON.stringify(imp));

  const numbers = (c: any) => new Map<string, number>(c.installments.map((i: any) => [i.id, i.number]));
  const references = new Map([
    ['A1', 'partial'],
    ['I1', 'partial'],
    ['A2', 'payoff'],
    ['I2', 'payoff'],
  ]);
  for (const table of ['payments', 'ledger', 'installments', 'credits']) {
    const rows = await auditOf(h, table);
    for (const [a, b] of [
      [partialApi, partialImport],
      [payoffApi, payoffImport],
    ]) {
      const byApi = shape(rows, a.credit.id, numbers(a), references);
      const byImport = shape(rows, b.credit.id, numbers(b), references);
      assert.ok(byApi.length > 0, `the API's payment left ${table} audit rows`);
      assert.deepEqual(byImport, byApi, `the ${table} audit rows of the imported payment`);
    }
  }
  // each payments and ledger row of the imported credits has its one INSERT audit row, whose image
  // is the row itself, with the row's business and branch and the importer as actor
  for (const table of ['payments', 'ledger']) {
    const { rows } = await sql<{ rows: number; audited: number; same: number }>`
      SELECT count(DISTINCT t.id)::int AS rows, count(a.id)::int AS audited,
             (count(a.id) FILTER (WHERE a.new_data = to_jsonb(t) AND a.old_data IS NULL
                                    AND a.branch_id IS NOT DISTINCT FROM t.branch_id
                                    AND a.actor = ${`api_key:${h.tenant.fullKeyId}`}))::int AS same
        FROM ${sql.table(table)} t
        LEFT JOIN audit_log a ON a.business_id = t.business_id AND a.table_name = ${table}
                              AND a.action = 'INSERT' AND a.record_id = t.id
       WHERE t.business_id = ${h.tenant.businessId}
         AND t.credit_id IN (${partialImport.credit.id}, ${payoffImport.credit.id})`.execute(h.db.kysely);
    const r = rows[0]!;
    assert.ok(r.rows > 0, `the import wrote ${table} rows`);
    assert.deepEqual([r.audited, r.same], [r.rows, r.rows], `every ${table} row audited once, as it is`);
  }
  // the payoff closed both its credits, each with its audit row
  const closed = (await auditOf(h, 'credits')).filter((r) => r.action === 'UPDATE' && r.new_data.status === 'closed');
  assert.deepEqual(
    closed.map((r) => r.record_id).sort(),
    [payoffApi.credit.id, payoffImport.credit.id].sort(),
    'the payoffs closed their credits',
  );
});
