import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { allocatePayment, outstanding, installmentStatus, installmentDue, money } from '../../src/domain/index.ts';
import type { InstallmentBalance } from '../../src/domain/index.ts';

const inst = (number: number, amount: string, principalPaid = '0', punitoryOwed = '0'): InstallmentBalance => ({
  id: `i${number}`,
  number,
  amount: money(amount),
  principalPaid: money(principalPaid),
  punitoryOwed: money(punitoryOwed),
});
const show = (a: ReturnType<typeof allocatePayment>) => ({
  slices: a.slices.map((s) => [s.installmentId, s.amount.toFixed(2), s.punitory.toFixed(2), s.principal.toFixed(2)]),
  unallocated: a.unallocated.toFixed(2),
});

test('in order of number; punitory first, then amount; one slice per installment', () => {
  // #1 owes 12.50 punitory + 450; #2 owes 450. 500 → #1: 12.50 + 450 = 462.50; #2: 37.50
  const a = allocatePayment(money(500), [inst(2, '450'), inst(1, '450', '0', '12.50')]);
  assert.deepEqual(show(a), {
    slices: [
      ['i1', '462.50', '12.50', '450.00'],
      ['i2', '37.50', '0.00', '37.50'],
    ],
    unallocated: '0.00',
  });
});

test('a small payment covers punitory before any amount', () => {
  // #1 owes 30 punitory; 20 goes all to punitory
  assert.deepEqual(show(allocatePayment(money(20), [inst(1, '450', '100', '30')])), {
    slices: [['i1', '20.00', '20.00', '0.00']],
    unallocated: '0.00',
  });
});

test('paid installments are skipped; too much is left unallocated', () => {
  // outstanding = 0 + (450 − 100) + 0 = 350; paying 400 leaves 50
  const list = [inst(1, '450', '450'), inst(2, '450', '100')];
  assert.equal(outstanding(list).toFixed(2), '350.00');
  assert.deepEqual(show(allocatePayment(money(400), list)), {
    slices: [['i2', '350.00', '0.00', '350.00']],
    unallocated: '50.00',
  });
});

test('a punitory credit (negative owed) offsets its own installment only', () => {
  // #1: amount 100, principal paid 0, punitory owed −25 → owes 75; #2 fully paid with a −10 credit → owes 0
  const list = [inst(1, '100', '0', '-25'), inst(2, '100', '100', '-10')];
  assert.deepEqual(installmentDue(list[0]!), { principal: money(75), punitory: money(0) });
  assert.equal(outstanding(list).toFixed(2), '75.00');
  assert.deepEqual(show(allocatePayment(money(80), list)), {
    slices: [['i1', '75.00', '0.00', '75.00']],
    unallocated: '5.00',
  });
});

test('installment status', () => {
  const st = (amount: string, principalPaid: string, punitoryOwed: string, anythingPaid: boolean) =>
    installmentStatus({
      amount: money(amount),
      principalPaid: money(principalPaid),
      punitoryOwed: money(punitoryOwed),
      anythingPaid,
    });
  assert.equal(st('450', '0', '0', false), 'pending');
  assert.equal(st('450', '0', '12', false), 'pending');
  assert.equal(st('450', '0', '0', true), 'partial'); // only punitory was paid
  assert.equal(st('450', '200', '0', true), 'partial');
  assert.equal(st('450', '450', '5', true), 'partial'); // amount covered, posted punitory not
  assert.equal(st('450', '450', '0', true), 'paid');
  assert.equal(st('450', '450', '-3', true), 'paid'); // negative posting after paying punitory
});

const arbInstallments = fc
  .array(
    fc.record({
      amountC: fc.integer({ min: 1, max: 1_000_000 }),
      paidShare: fc.integer({ min: 0, max: 100 }),
      punC: fc.integer({ min: -2_000, max: 50_000 }),
    }),
    { minLength: 1, maxLength: 12 },
  )
  .map((xs) =>
    fc.shuffledSubarray(
      xs.map((x, k) => {
        const amount = money(x.amountC).div(100);
        const principalPaid = money(Math.floor((x.amountC * x.paidShare) / 100)).div(100);
        return { id: `i${k + 1}`, number: k + 1, amount, principalPaid, punitoryOwed: money(x.punC).div(100) };
      }),
      { minLength: xs.length, maxLength: xs.length },
    ),
  )
  .chain((a) => a);

test('property: never more than owed; slices + unallocated = amount; order and priority kept', () => {
  fc.assert(
    fc.property(arbInstallments, fc.integer({ min: 1, max: 20_000_000 }), (list, payC) => {
      const pay = money(payC).div(100);
      const { slices, unallocated } = allocatePayment(pay, list);
      const byId = new Map(list.map((i) => [i.id, i]));
      let sum = money(0);
      let lastNumber = 0;
      for (const s of slices) {
        const i = byId.get(s.installmentId)!;
        const due = installmentDue(i);
        assert.ok(s.principal.gte(0) && s.punitory.gte(0), 'holds: s.principal.gte(0) && s.punitory.gte(0)');
        assert.ok(s.principal.lte(due.principal) && s.punitory.lte(due.punitory), 'pays more than owed');
        assert.ok(
          s.amount.eq(s.principal.plus(s.punitory)) && s.amount.gt(0),
          'holds: s.amount.eq(s.principal.plus(s.punitory)) && s.amount.gt(0)',
        );
        if (s.principal.gt(0)) assert.ok(s.punitory.eq(due.punitory), 'principal before punitory');
        assert.ok(i.number > lastNumber, 'out of order or two slices on one installment');
        lastNumber = i.number;
        sum = sum.plus(s.amount);
      }
      assert.equal(sum.plus(unallocated).toFixed(2), pay.toFixed(2));
      assert.equal(
        unallocated.toFixed(2),
        (pay.gt(outstanding(list)) ? pay.minus(outstanding(list)) : money(0)).toFixed(2),
      );
      // anything unallocated means every installment was paid in full
      if (unallocated.gt(0)) {
        for (const i of list) {
          const s = slices.find((x) => x.installmentId === i.id);
          const status = installmentStatus({
            amount: i.amount,
            principalPaid: i.principalPaid.plus(s?.principal ?? 0),
            punitoryOwed: i.punitoryOwed.minus(s?.punitory ?? 0),
            anythingPaid: true,
          });
          assert.equal(status, 'paid');
        }
      }
    }),
    { numRuns: 500 },
  );
});
