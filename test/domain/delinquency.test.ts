import { test } from 'node:test';
import assert from 'node:assert/strict';
import { delinquency } from '../../src/domain/index.ts';

test('due today is not overdue; due yesterday is 1 day late', () => {
  assert.deepEqual(delinquency({ dueDate: '2024-03-10', status: 'pending', paidDate: null }, '2024-03-10'), {
    overdue: false,
    days_late: 0,
  });
  assert.deepEqual(delinquency({ dueDate: '2024-03-10', status: 'partial', paidDate: null }, '2024-03-11'), {
    overdue: true,
    days_late: 1,
  });
  // 2024-02-10 → 2024-03-10 is 29 days (leap February)
  assert.deepEqual(delinquency({ dueDate: '2024-02-10', status: 'pending', paidDate: null }, '2024-03-10'), {
    overdue: true,
    days_late: 29,
  });
  assert.deepEqual(delinquency({ dueDate: '2024-03-10', status: 'pending', paidDate: null }, '2024-03-01'), {
    overdue: false,
    days_late: 0,
  });
});

test('paid: never overdue, days late frozen at the day it became paid', () => {
  // due 03-10, paid 03-20 → 10 days late whatever today is
  assert.deepEqual(delinquency({ dueDate: '2024-03-10', status: 'paid', paidDate: '2024-03-20' }, '2024-12-31'), {
    overdue: false,
    days_late: 10,
  });
  assert.deepEqual(delinquency({ dueDate: '2024-03-10', status: 'paid', paidDate: '2024-03-01' }, '2024-12-31'), {
    overdue: false,
    days_late: 0,
  });
  assert.deepEqual(delinquency({ dueDate: '2024-03-10', status: 'paid', paidDate: null }, '2024-12-31'), {
    overdue: false,
    days_late: 0,
  });
});

test("a cancelled credit's installment: never overdue, 0 days late, whatever today is", () => {
  for (const status of ['pending', 'partial'] as const)
    assert.deepEqual(
      delinquency({ dueDate: '2024-02-10', status, paidDate: null, cancelled: true }, '2024-12-31'),
      { overdue: false, days_late: 0 },
      status,
    );
});
