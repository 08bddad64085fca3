// The loan contract and the promissory note ("pagaré") as PDF, in Spanish (docs/api.md, "Contract
// and promissory note"), drawn from services/creditDocuments.ts with the statement's sheet
// (documents.ts): A4, the standard fonts, amounts as $ 1.234,56. The contract discloses the cost
// as the central bank's transparency rules ask: TNA and TEA in the body's type, the CFT (with and
// without VAT) larger and in bold.
import type { CreditDocuments, FeeTerms, Party } from '../../services/creditDocuments.ts';
import { Dec, money, pesosInWords } from '../../domain/index.ts';
import { INK, MARGIN, MUTED, Sheet, WIDTH, type Column } from './documents.ts';
import { cuit, dni, domicilio, fecha, fullName, pesos, porcentaje } from './format.ts';

/** The type of the CFT and of the other rates: tests read these back from the PDF. */
export const RATE_SIZE = 9;
export const CFT_SIZE = 15;

/** The schedule's columns (the parts of services/creditDocuments.ts). */
const PART_LABELS: Record<string, string> = {
  principal: 'Capital',
  interest: 'Interés',
  vat: 'IVA',
  insurance: 'Seguro',
  insurance_vat: 'IVA seguro',
  fees: 'Gastos adm.',
  fees_vat: 'IVA gastos',
};
const partLabel = (p: string) => PART_LABELS[p] ?? p;

/** "José María Peña, DNI 30.123.456, CUIT/CUIL 20-30123456-7, con domicilio en …" */
function identity(p: Party): string {
  const address = domicilio(p);
  return [
    fullName(p),
    `DNI ${dni(p.dni)}`,
    p.cuit ? `CUIT/CUIL ${cuit(p.cuit)}` : null,
    address ? `con domicilio en ${address}` : null,
  ]
    .filter(Boolean)
    .join(', ');
}

const upper = (s: string) => s.toLocaleUpperCase('es-AR');

/** A fee of the plan in words. */
function feeText(f: FeeTerms, d: CreditDocuments): string {
  const vat = f.vat ? ' más IVA' : '';
  const amount = f.amount !== undefined ? pesos(f.amount) : null;
  const rate = f.rate !== undefined ? porcentaje(f.rate, { terms: true }) : null;
  switch (f.type) {
    case 'origination': {
      const o = d.credit.origination;
      const how = o.financed ? 'financiada: se suma al capital a devolver' : 'descontada del monto entregado';
      return (
        `Comisión de otorgamiento: ${rate ? `${rate} del monto del préstamo` : amount}${vat}, ${how}. ` +
        `Importe: ${pesos(o.fee)}${money(o.vat).isZero() ? '' : ` más IVA ${pesos(o.vat)}`} (total ${pesos(o.total)}).`
      );
    }
    case 'insurance':
      return `Seguro de vida sobre saldo deudor: ${rate ?? amount} mensual sobre el capital adeudado al inicio de cada período${vat}, incluido en cada cuota.`;
    case 'admin':
      return `Gasto administrativo: ${amount ?? rate} por cuota${vat}, incluido en cada cuota.`;
    case 'collection':
      return (
        `Cargo por gestión de cobranza: ${amount ?? rate}${vat}, una vez por cuota` +
        `${f.after_days !== undefined ? `, cuando tenga ${f.after_days} ${f.after_days === 1 ? 'día' : 'días'} de atraso` : ' en mora'}.`
      );
    default:
      return `${f.type}: ${[rate, amount].filter(Boolean).join(' / ')}${vat}.`;
  }
}

const PUNITORY_BASE: Record<string, string> = {
  simple_outstanding: 'sobre el importe impago de la cuota',
  compound: 'sobre el importe impago de la cuota y los punitorios impagos',
  full_amount: 'sobre el importe total de la cuota',
};

/** Where the documents are signed: the branch's address, or a blank to fill in by hand. */
const place = (d: CreditDocuments) => d.branch?.address?.trim() || '……………………………';

/** A signature line with the name and identity under it, at x, `width` wide. */
function signature(s: Sheet, x: number, width: number, lines: string[]) {
  s.doc
    .moveTo(x, s.y)
    .lineTo(x + width, s.y)
    .lineWidth(0.5)
    .strokeColor(INK)
    .stroke();
  const top = s.y;
  s.y += 4;
  for (const [k, l] of lines.entries()) {
    s.cell(l, x, width, { size: k === 0 ? 8.5 : 7.5, bold: k === 0, color: k === 0 ? INK : MUTED });
    s.y += 11;
  }
  const bottom = s.y;
  s.y = top;
  return bottom;
}

/** Signature blocks two to a row. */
function signatures(s: Sheet, blocks: string[][]) {
  const w = (WIDTH - 40) / 2;
  for (let k = 0; k < blocks.length; k += 2) {
    s.ensure(90);
    s.y += 46;
    const a = signature(s, MARGIN, w, blocks[k]!);
    const b = blocks[k + 1] ? signature(s, MARGIN + w + 40, w, blocks[k + 1]!) : a;
    s.y = Math.max(a, b) + 4;
  }
}

/** Amounts as text ("1234.50") added up exactly. */
const total = (xs: string[]) => xs.reduce((t, x) => t.plus(money(x)), money(0)).toFixed(2);

/** The loan contract: parties, money, schedule with its parts, fees, rates and CFT, terms, signatures. */
export function renderContractPdf(d: CreditDocuments, opts: { now: Date }): Promise<Buffer> {
  const c = d.credit;
  const s = new Sheet({
    title: `Contrato de préstamo - Crédito Nº ${c.sequential_id}`,
    author: d.business.name,
    subject: `Contrato de préstamo de ${fullName(d.client)}`,
    created: opts.now,
  });
  s.cell(d.business.name, MARGIN, WIDTH * 0.55, { size: 16, bold: true });
  s.cell('CONTRATO DE PRÉSTAMO', MARGIN + WIDTH * 0.55, WIDTH * 0.45, { size: 12, bold: true, align: 'right' });
  s.y += 18;
  s.cell(d.branch ? `${d.branch.name}${d.branch.address ? ` · ${d.branch.address}` : ''}` : '', MARGIN, WIDTH * 0.6, {
    size: 8.5,
    color: MUTED,
  });
  s.cell(`Crédito Nº ${c.sequential_id} · ${fecha(c.start_date)}`, MARGIN + WIDTH * 0.6, WIDTH * 0.4, {
    size: 9,
    align: 'right',
    color: MUTED,
  });
  s.y += 16;
  s.rule(INK);

  const lender = `${d.business.name}${d.branch?.address ? `, con domicilio en ${d.branch.address}` : ''}`;
  const guarantors = d.guarantors.filter((g) => g.role === 'guarantor');
  const coBorrowers = d.guarantors.filter((g) => g.role === 'co_borrower');
  const also = [
    coBorrowers.length
      ? `${coBorrowers.map(identity).join('; ')} (en adelante, «${coBorrowers.length > 1 ? 'LOS CODEUDORES' : 'EL CODEUDOR'}»)`
      : null,
    guarantors.length
      ? `${guarantors.map(identity).join('; ')} (en adelante, «${guarantors.length > 1 ? 'LOS FIADORES' : 'EL FIADOR'}»)`
      : null,
  ].filter(Boolean);
  s.para(
    `Entre ${lender} (en adelante, «EL ACREEDOR»), y ${identity(d.client)} (en adelante, «EL DEUDOR»)` +
      `${also.length ? `, con la intervención de ${also.join(', y de ')}` : ''}, ` +
      'se celebra el presente contrato de préstamo de dinero, sujeto a las cláusulas siguientes.',
    { size: 9.5, gap: 6 },
  );

  // PRIMERA: the money
  const o = c.origination;
  const fee = !money(o.total).isZero();
  const principal = total(d.installments.map((i) => i.parts.principal ?? '0'));
  s.heading('PRIMERA. Monto del préstamo');
  // a refinance hands over no cash for the balance it settles (docs/domain.md, "Refinance"): only
  // what the new credit lends beyond it
  const r = c.refinanced_from;
  const cash = r ? money(c.disbursed).minus(money(r.settled)) : money(c.disbursed);
  const receives = cash.gt(0)
    ? `EL DEUDOR recibe en este acto ${fee && !o.financed ? 'el neto de ' : ''}${pesos(cash.toFixed(2))}, a su entera satisfacción.`
    : 'EL DEUDOR no recibe dinero en efectivo.';
  const handed = r
    ? `De ella, ${pesos(r.settled)} se aplican en este acto a la cancelación del saldo del crédito Nº ${r.sequential_id}. ${receives}`
    : receives;
  s.para(
    `EL ACREEDOR presta a EL DEUDOR la suma de ${pesos(c.amount)} (${pesosInWords(c.amount)}). ` +
      (!fee
        ? handed
        : o.financed
          ? `La comisión de otorgamiento de ${pesos(o.total)} (IVA incluido) se financia: se suma al capital a devolver. ${handed}`
          : `De ella se descuenta la comisión de otorgamiento de ${pesos(o.total)} (IVA incluido). ${handed}`),
    { size: 9.5, gap: 6 },
  );
  const money1: [string, string][] = [['Monto del préstamo', pesos(c.amount)]];
  if (fee)
    money1.push([`Comisión de otorgamiento (${o.financed ? 'financiada' : 'descontada'}, IVA incl.)`, pesos(o.total)]);
  if (r) money1.push([`Aplicado a cancelar el crédito Nº ${r.sequential_id}`, pesos(r.settled)]);
  money1.push([r ? 'Entregado en efectivo' : 'Monto neto desembolsado', pesos(Dec.max(cash, 0).toFixed(2))]);
  if (fee && o.financed) money1.push(['Capital a devolver', pesos(principal)]);
  money1.push(['Total a devolver', pesos(c.total)]);
  s.y = s.pairs(money1, MARGIN, WIDTH * 0.7, 230) + 4;

  // SEGUNDA: the schedule, one column per part the installments carry
  s.heading('SEGUNDA. Devolución y cronograma de cuotas');
  const first = d.installments[0];
  s.para(
    `EL DEUDOR devolverá el préstamo en ${c.installments_count} ${c.installments_count === 1 ? 'cuota' : 'cuotas mensuales y consecutivas'}` +
      `${c.amortization === 'french' ? ' (sistema francés)' : ' (interés directo sobre el monto prestado)'}` +
      `${first ? `, ${d.installments.length > 1 ? 'la primera ' : ''}con vencimiento el ${fecha(first.due_date)}` : ''}, por un total de ${pesos(c.total)}, ` +
      'según el cronograma siguiente. Los importes de las cuotas incluyen el IVA cuando corresponde.',
    { size: 9.5, gap: 6 },
  );
  const fixed = 32 + 58;
  const each = (WIDTH - fixed) / (d.parts.length + 1);
  const columns: Column[] = [
    { title: 'Cuota', width: 32 },
    { title: 'Vencimiento', width: 58 },
    ...d.parts.map((p) => ({ title: partLabel(p), width: each, align: 'right' as const })),
    { title: 'Importe de la cuota', width: each, align: 'right' },
  ];
  s.table(
    columns,
    d.installments.map((i) => [
      String(i.number),
      fecha(i.due_date),
      ...d.parts.map((p) => pesos(i.parts[p] ?? 0)),
      pesos(i.amount),
    ]),
    ['Total', '', ...d.parts.map((p) => pesos(total(d.installments.map((i) => i.parts[p] ?? '0')))), pesos(c.total)],
  );

  // TERCERA: the rates, the CFT larger and bold
  s.heading('TERCERA. Tasas y costo financiero total');
  s.ensure(110);
  const rates: [string, string][] = [
    ['Tasa nominal anual (TNA)', porcentaje(d.cost.tna)],
    ['Tasa efectiva anual (TEA)', porcentaje(d.cost.tea)],
  ];
  for (const [label, value] of rates) {
    s.cell(label, MARGIN, 200, { size: RATE_SIZE, color: MUTED });
    s.cell(value, MARGIN + 200, 120, { size: RATE_SIZE });
    s.y += 14;
  }
  s.y += 4;
  const boxTop = s.y;
  s.doc.rect(MARGIN, boxTop, WIDTH, 52).lineWidth(1.2).strokeColor(INK).stroke();
  s.y += 8;
  const cft = (v: string | null) => (v === null ? 'no determinable' : porcentaje(v));
  s.cell('COSTO FINANCIERO TOTAL (CFT) efectivo anual con IVA', MARGIN + 8, 300, { size: 10, bold: true });
  s.cell(cft(d.cost.cft_tea), MARGIN + 300, WIDTH - 310, { size: CFT_SIZE, bold: true, align: 'right' });
  s.y += 20;
  s.cell('COSTO FINANCIERO TOTAL (CFT) efectivo anual sin IVA', MARGIN + 8, 300, { size: 10, bold: true });
  s.cell(cft(d.cost.cft_tea_without_vat), MARGIN + 300, WIDTH - 310, { size: CFT_SIZE, bold: true, align: 'right' });
  s.y = boxTop + 58;
  s.para(
    'El CFT iguala el monto neto desembolsado con las cuotas en sus fechas de vencimiento (días reales sobre 365) ' +
      'e incluye intereses, comisiones, seguros y cargos del préstamo; sin IVA, deja fuera el IVA de cada uno. ' +
      'La TEA es la tasa efectiva de la TNA capitalizada mensualmente.',
    { size: 7.5, color: MUTED, gap: 6 },
  );

  // CUARTA: fees
  s.heading('CUARTA. Comisiones y cargos');
  if (c.fees.length === 0) s.para('El préstamo no tiene comisiones ni cargos.', { size: 9.5, gap: 6 });
  else for (const f of c.fees) s.para(`• ${feeText(f, d)}`, { size: 9.5, gap: 3 });

  // QUINTA: default and punitory
  s.heading('QUINTA. Mora e intereses punitorios');
  const rate = money(c.daily_punitory_rate);
  s.para(
    'La mora se produce de pleno derecho por el solo vencimiento de cualquier cuota impaga, sin necesidad de ' +
      'interpelación alguna. ' +
      (rate.isZero()
        ? 'El préstamo no prevé intereses punitorios.'
        : `Cada cuota vencida e impaga devenga intereses punitorios del ${porcentaje(c.daily_punitory_rate, { terms: true })} diario ` +
          `${PUNITORY_BASE[c.punitory_mode] ?? ''}${money(c.vat_rate).isZero() ? '' : ' más IVA'}, desde el día siguiente a su vencimiento` +
          `${c.max_punitory_days > 0 ? ` y durante ${c.max_punitory_days} días como máximo` : ''}` +
          `${money(c.punitory_cap_pct).isZero() ? '' : `, hasta el ${porcentaje(money(c.punitory_cap_pct).div(100).toString(), { terms: true })} del importe de la cuota`}.` +
          (c.grace_days > 0
            ? ` Una cuota pagada por completo dentro de los ${c.grace_days} días siguientes a su vencimiento no devenga punitorios.`
            : '')),
    { size: 9.5, gap: 6 },
  );

  s.heading('SEXTA. Cancelación anticipada');
  s.para(
    'EL DEUDOR puede cancelar anticipadamente el total del préstamo en cualquier momento: paga lo vencido y, de las ' +
      'cuotas a vencer, el capital y el interés devengado hasta el día del pago' +
      (d.parts.some((p) => p === 'insurance' || p === 'fees')
        ? ', más el seguro y los gastos del período en curso'
        : '') +
      '; los intereses de los períodos no transcurridos no se cobran.',
    { size: 9.5, gap: 6 },
  );

  s.heading('SÉPTIMA. Pagaré');
  s.para(
    `En garantía de las obligaciones de este contrato, EL DEUDOR libra a la orden de EL ACREEDOR un pagaré a la vista, ` +
      `sin protesto, por ${pesos(c.total)}, que entrega en este acto.`,
    { size: 9.5, gap: 6 },
  );

  if (d.guarantors.length) {
    s.heading('OCTAVA. Garantía personal');
    s.para(
      [
        guarantors.length
          ? `${guarantors.length > 1 ? 'LOS FIADORES se constituyen' : 'EL FIADOR se constituye'} en fiador solidario, liso, llano y principal pagador de todas las obligaciones de EL DEUDOR, con renuncia a los beneficios de excusión y división.`
          : '',
        coBorrowers.length
          ? `${coBorrowers.length > 1 ? 'LOS CODEUDORES asumen' : 'EL CODEUDOR asume'} las obligaciones de este contrato en forma solidaria con EL DEUDOR.`
          : '',
      ]
        .filter(Boolean)
        .join(' '),
      { size: 9.5, gap: 6 },
    );
  }

  s.y += 4;
  s.para(
    `En prueba de conformidad se firman dos ejemplares de un mismo tenor en ${place(d)}, el ${fecha(c.start_date)}.`,
    { size: 9.5, gap: 6 },
  );
  signatures(s, [
    ['EL DEUDOR', fullName(d.client), `DNI ${dni(d.client.dni)}`],
    ['EL ACREEDOR', d.business.name, 'Firma y sello'],
    ...d.guarantors.map((g) => [
      g.role === 'guarantor' ? 'EL FIADOR' : 'EL CODEUDOR',
      fullName(g),
      `DNI ${dni(g.dni)}`,
    ]),
  ]);
  return s.finish(`${d.business.name} · Contrato de préstamo, crédito Nº ${c.sequential_id}`);
}

/** The promissory note: a sight note, "sin protesto", for the total to repay, in figures and in words. */
export function renderPromissoryNotePdf(d: CreditDocuments, o: { now: Date }): Promise<Buffer> {
  const c = d.credit;
  const s = new Sheet({
    title: `Pagaré - Crédito Nº ${c.sequential_id}`,
    author: d.business.name,
    subject: `Pagaré de ${fullName(d.client)} por ${pesos(c.total)}`,
    created: o.now,
  });
  const top = s.y;
  s.y += 12;
  s.cell('PAGARÉ', MARGIN + 12, 200, { size: 22, bold: true });
  s.cell(`Por ${pesos(c.total)}`, MARGIN + WIDTH - 262, 250, { size: 16, bold: true, align: 'right' });
  s.y += 30;
  s.cell(`Crédito Nº ${c.sequential_id}`, MARGIN + 12, 200, { size: 9, color: MUTED });
  s.cell('Vencimiento: a la vista', MARGIN + WIDTH - 262, 250, { size: 10, align: 'right' });
  s.y += 20;
  s.para(`Lugar y fecha de emisión: ${place(d)}, ${fecha(c.start_date)}`, {
    size: 10.5,
    x: MARGIN + 12,
    width: WIDTH - 24,
    gap: 10,
  });
  const coBorrowers = d.guarantors.filter((g) => g.role === 'co_borrower');
  const many = coBorrowers.length > 0;
  s.para(
    `A la vista ${many ? 'pagaremos en forma solidaria' : 'pagaré'} sin protesto (art. 50 del Decreto-Ley 5965/63) a ` +
      `${d.business.name} o a su orden la cantidad de ${upper(pesosInWords(c.total))} (${pesos(c.total)}), ` +
      `por igual valor recibido a ${many ? 'nuestra' : 'mi'} entera satisfacción.`,
    { size: 11, x: MARGIN + 12, width: WIDTH - 24, gap: 8 },
  );
  s.para(`Pagadero en ${d.branch?.address?.trim() ? d.branch.address.trim() : 'el domicilio de EL ACREEDOR'}.`, {
    size: 10.5,
    x: MARGIN + 12,
    width: WIDTH - 24,
    gap: 12,
  });
  // the note itself framed; who signs it below the frame (it may continue on another page)
  s.doc
    .rect(MARGIN, top, WIDTH, s.y - top)
    .lineWidth(1)
    .strokeColor(INK)
    .stroke();
  s.y += 16;
  const signer = (p: Party, title: string) => {
    s.ensure(120);
    s.cell(title, MARGIN + 12, WIDTH - 24, { size: 9, bold: true, color: MUTED });
    s.y += 14;
    const rows: [string, string][] = [
      ['Nombre y apellido', fullName(p)],
      ['DNI', dni(p.dni)],
      ['CUIT/CUIL', cuit(p.cuit)],
      ['Domicilio', domicilio(p) ?? '……………………………………………'],
    ];
    s.y = s.pairs(rows, MARGIN + 12, WIDTH - 24, 110);
    s.y += 40;
    signature(s, MARGIN + WIDTH - 232, 220, ['Firma']);
    s.y += 22;
  };
  signer(d.client, 'LIBRADOR');
  for (const g of coBorrowers) signer(g, 'LIBRADOR (CODEUDOR SOLIDARIO)');
  for (const g of d.guarantors.filter((x) => x.role === 'guarantor')) signer(g, 'POR AVAL');
  return s.finish(`${d.business.name} · Pagaré, crédito Nº ${c.sequential_id}`);
}
