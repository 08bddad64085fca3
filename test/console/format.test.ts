// The console's pure parts, without a browser: money as Argentina writes it with no "-$ 0,00"
// anywhere (console/src/format.ts), the payoff quote as a lender reads it (console/src/payoff.ts),
// and every text the console passes to t() as a literal has its Spanish in ES of i18n.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { fmtMoney, fmtNumber } from '../../console/src/format.ts';
import { PAYOFF_PARTS, payoffLines } from '../../console/src/payoff.ts';

// Intl writes a non-breaking space after the sign: compared with plain spaces
const plain = (s: string) => s.replace(/\s/g, ' ');

test('money: $ 1.234,56, negatives with their sign, and zero never negative', () => {
  assert.equal(plain(fmtMoney(1234.56)), '$ 1.234,56');
  assert.equal(plain(fmtMoney('700')), '$ 700,00');
  assert.equal(plain(fmtMoney(-1170)), '-$ 1.170,00');
  assert.equal(plain(fmtMoney(-0.01)), '-$ 0,01');
  // −0 (a column of −waived where nothing was waived) and what rounds to 0 from below
  for (const zero of [-0, 0, -0.001, -0.004999, '-0', '-0.00']) {
    assert.equal(plain(fmtMoney(zero)), '$ 0,00', `fmtMoney(${Object.is(zero, -0) ? '-0' : zero})`);
  }
  assert.equal(fmtMoney(null), '—');
  assert.equal(fmtMoney(''), '—');
  assert.equal(fmtNumber(-0), '0');
  assert.equal(fmtNumber(-2.5), '-2,5');
});

test('a payoff paid beyond: no negative part, the refund on its own line', () => {
  // the quote of test/console/payoff-close.test.ts: 3,000 in 3 × 1,300, 3,800 paid, quoted on day 10
  const quote = {
    as_of: '2026-11-27',
    amount: 0,
    refundable: 700,
    breakdown: {
      due: 0,
      punitory: 0,
      charges: 0,
      principal: -700,
      interest: 0,
      vat: 0,
      insurance: 0,
      fees: 0,
      rebate: 800,
    },
  };
  const lines = payoffLines(quote);
  assert.deepEqual(
    lines.parts.map((p) => [p.key, p.amount]),
    [
      ['principal', 0],
      ['interest', 0],
    ],
  );
  assert.deepEqual([lines.advance, lines.refund, lines.rebate], [0, 700, 800]);
});

test('a payoff whose prepayment covers part of what is owed: the parts as owed, the prepayment taken off', () => {
  // an overdue installment owes 500 and its punitory 20, the later ones were paid 300 beyond:
  // the API's breakdown adds up to the amount (500 + 20 − 300 + 30 = 250)
  const quote = {
    as_of: '2026-11-27',
    amount: 250,
    refundable: 0,
    breakdown: { due: 500, punitory: 20, charges: 0, principal: -300, interest: 30, vat: 0, insurance: 0, fees: 0 },
  };
  const lines = payoffLines(quote);
  assert.deepEqual(
    lines.parts.map((p) => [p.key, p.amount]),
    [
      ['due', 500],
      ['punitory', 20],
      ['principal', 0],
      ['interest', 30],
    ],
  );
  assert.ok(
    lines.parts.every((p) => p.amount >= 0),
    'no part below 0',
  );
  const sum = lines.parts.reduce((s, p) => s + p.amount, 0) - lines.advance;
  assert.deepEqual([lines.advance, sum, lines.refund], [300, 250, 0], 'the parts less the prepayment are the amount');
  // an ordinary quote: the parts as the API gives them, nothing taken off
  const plainQuote = payoffLines({
    as_of: '2026-11-27',
    amount: 1100.5,
    refundable: 0,
    breakdown: {
      due: 0,
      punitory: 0,
      charges: 0,
      principal: 1000,
      interest: 80.5,
      vat: 20,
      insurance: 0,
      fees: 0,
      rebate: 5,
    },
  });
  assert.deepEqual(
    plainQuote.parts.map((p) => [p.key, p.amount]),
    [
      ['principal', 1000],
      ['interest', 80.5],
      ['vat', 20],
    ],
  );
  assert.deepEqual([plainQuote.advance, plainQuote.refund, plainQuote.rebate], [0, 0, 5]);
});

/** The keys of ES in console/src/i18n.ts, read from its source (the module needs a browser to load). */
function spanishKeys(): Set<string> {
  const source = ts.createSourceFile(
    'i18n.ts',
    readFileSync('console/src/i18n.ts', 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const keys = new Set<string>();
  const visit = (n: ts.Node): void => {
    if (
      ts.isVariableDeclaration(n) &&
      n.name.getText(source) === 'ES' &&
      n.initializer &&
      ts.isObjectLiteralExpression(n.initializer)
    ) {
      for (const p of n.initializer.properties) {
        if (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) keys.add(p.name.text);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return keys;
}

test('every text the console passes to t() as a literal, and every payoff label, has its Spanish', () => {
  const es = spanishKeys();
  assert.ok(es.size > 300, `ES read from i18n.ts (${es.size} texts)`);
  const files = readdirSync('console/src', { recursive: true })
    .map(String)
    .filter((f) => /\.tsx?$/.test(f))
    .map((f) => join('console/src', f));
  const literals = (e: ts.Expression): string[] =>
    ts.isStringLiteralLike(e)
      ? [e.text]
      : ts.isConditionalExpression(e)
        ? [...literals(e.whenTrue), ...literals(e.whenFalse)]
        : ts.isParenthesizedExpression(e)
          ? literals(e.expression)
          : [];
  const missing: string[] = [];
  let seen = 0;
  for (const file of files) {
    const source = ts.createSourceFile(
      file,
      readFileSync(file, 'utf8'),
      ts.ScriptTarget.Latest,
      true,
      ts.ScriptKind.TSX,
    );
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 't' && n.arguments[0]) {
        for (const text of literals(n.arguments[0])) {
          seen++;
          if (!es.has(text))
            missing.push(`${file}:${source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1}: ${text}`);
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(source);
  }
  assert.ok(seen > 500, `texts found (${seen})`);
  // the payoff's labels are t(p.label): not literals at the call
  for (const [key, label] of PAYOFF_PARTS) if (!es.has(label)) missing.push(`payoff part ${key}: ${label}`);
  for (const label of ['Rebate', 'Paid in advance', 'To refund to the client'])
    if (!es.has(label)) missing.push(`payoff: ${label}`);
  assert.deepEqual(missing, [], 'texts with no Spanish (they would show in English)');
});
