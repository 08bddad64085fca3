// The statement and the receipt as PDF: the same documents the JSON answers carry
// (services/statements.ts), laid out for a client at a branch counter, in Spanish (docs/api.md,
// "Statement and receipt"). A4, the PDF standard fonts (nothing embedded, nothing fetched), one
// table row per installment, payment or slice; long tables continue on the next page with their
// header repeated; every page is numbered.
import PDFDocument from 'pdfkit';
import { Dec, money } from '../../domain/index.ts';
import type { ReceiptDocument, StatementDocument } from '../../services/statements.ts';
import {
  CREDIT_STATUS,
  PAYMENT_METHOD,
  cuit,
  dni,
  fecha,
  fechaDe,
  fullName,
  installmentState,
  pesos,
  winAnsi,
} from './format.ts';

export const MARGIN = 40;
const PAGE = { width: 595.28, height: 841.89 }; // A4 in points
export const WIDTH = PAGE.width - 2 * MARGIN;
const FOOTER = 28; // room kept at the bottom of each page for its footer
export const INK = '#1a1a1a';
export const MUTED = '#555555';
const RULE = '#b0b0b0';
const SHADE = '#eeeeee';
export const ALERT = '#b00020';

type Align = 'left' | 'right';
export interface Column {
  title: string;
  width: number;
  align?: Align;
  /** room kept on the left (after a right-aligned column) */
  indent?: number;
}

/** A PDF being written top to bottom: a cursor, text that never spills out of its box, tables that break across pages. */
export class Sheet {
  readonly doc: PDFKit.PDFDocument;
  y = MARGIN;

  constructor(meta: { title: string; author: string; subject: string; created: Date }) {
    this.doc = new PDFDocument({
      size: 'A4',
      margin: MARGIN,
      bufferPages: true,
      lang: 'es-AR',
      info: { Title: winAnsi(meta.title), Author: winAnsi(meta.author), Subject: winAnsi(meta.subject) },
    });
    // a fixed creation date: the same document renders the same bytes
    this.doc.info.CreationDate = meta.created;
    this.doc.fillColor(INK);
  }

  /** Text in a box of `width` on one line: shrunk (down to 5 pt) rather than spilled over the next column. */
  cell(
    text: string,
    x: number,
    width: number,
    o: { size?: number; bold?: boolean; align?: Align; color?: string } = {},
  ) {
    const t = winAnsi(text);
    let size = o.size ?? 8;
    this.doc.font(o.bold ? 'Helvetica-Bold' : 'Helvetica');
    while (size > 5 && this.doc.fontSize(size).widthOfString(t) > width - 4) size -= 0.5;
    const w = this.doc.widthOfString(t);
    const left = o.align === 'right' ? x + width - 2 - w : x + 2;
    this.doc
      .fillColor(o.color ?? INK)
      .text(t, left, this.y, { lineBreak: false })
      .fillColor(INK);
  }

  /** A paragraph that wraps within the page width (or `width` from `x`); the cursor moves below it. */
  para(
    text: string,
    o: { size?: number; bold?: boolean; color?: string; x?: number; width?: number; gap?: number } = {},
  ) {
    const width = o.width ?? WIDTH;
    this.doc.font(o.bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(o.size ?? 9);
    const t = winAnsi(text);
    this.ensure(this.doc.heightOfString(t, { width }));
    this.doc
      .fillColor(o.color ?? INK)
      .text(t, o.x ?? MARGIN, this.y, { width })
      .fillColor(INK);
    this.y = this.doc.y + (o.gap ?? 4);
  }

  rule(color = RULE) {
    this.doc
      .moveTo(MARGIN, this.y)
      .lineTo(MARGIN + WIDTH, this.y)
      .lineWidth(0.5)
      .strokeColor(color)
      .stroke();
    this.y += 6;
  }

  /** Starts a new page when `height` does not fit on this one; true when it did. */
  ensure(height: number): boolean {
    if (this.y + height <= PAGE.height - MARGIN - FOOTER) return false;
    this.doc.addPage();
    this.y = MARGIN;
    return true;
  }

  heading(text: string) {
    this.ensure(40);
    this.y += 6;
    this.cell(text, MARGIN, WIDTH, { size: 11, bold: true });
    this.y += 16;
  }

  /** Label and value pairs, one per line, in a column at `x`. */
  pairs(rows: [string, string][], x: number, width: number, labelWidth: number) {
    const top = this.y;
    for (const [label, value] of rows) {
      this.cell(label, x, labelWidth, { size: 9, color: MUTED });
      this.cell(value, x + labelWidth, width - labelWidth, { size: 9, bold: true });
      this.y += 13;
    }
    const bottom = this.y;
    this.y = top;
    return bottom;
  }

  /** A table: a shaded header row, one row per item (header repeated after a page break), and an optional bold totals row. */
  table(columns: Column[], rows: string[][], totals?: string[], note?: (row: number) => string | undefined) {
    const rowHeight = 14;
    const header = () => {
      this.doc.rect(MARGIN, this.y - 3, WIDTH, rowHeight).fill(SHADE);
      this.doc.fillColor(INK);
      let x = MARGIN;
      for (const c of columns) {
        this.cell(c.title, x + (c.indent ?? 0), c.width - (c.indent ?? 0), { bold: true, align: c.align, size: 7.5 });
        x += c.width;
      }
      this.y += rowHeight;
    };
    this.ensure(rowHeight * 2);
    header();
    rows.forEach((row, r) => {
      if (this.ensure(rowHeight)) header();
      let x = MARGIN;
      row.forEach((v, k) => {
        const c = columns[k]!;
        this.cell(v, x + (c.indent ?? 0), c.width - (c.indent ?? 0), { align: c.align });
        x += c.width;
      });
      this.y += rowHeight;
      const n = note?.(r);
      if (n) {
        this.para(n, { size: 7.5, color: ALERT, x: MARGIN + 4, width: WIDTH - 8, gap: 4 });
      }
    });
    if (totals) {
      if (this.ensure(rowHeight)) header();
      this.y -= 3;
      this.rule();
      let x = MARGIN;
      totals.forEach((v, k) => {
        const c = columns[k]!;
        this.cell(v, x + (c.indent ?? 0), c.width - (c.indent ?? 0), { bold: true, align: c.align });
        x += c.width;
      });
      this.y += rowHeight;
    }
    this.y += 4;
  }

  /** Numbers every page and writes the footer line on each, then the whole file. */
  async finish(footer: string): Promise<Buffer> {
    const range = this.doc.bufferedPageRange();
    for (let i = range.start; i < range.start + range.count; i++) {
      this.doc.switchToPage(i);
      // the footer sits in the bottom margin: without this pdfkit would start a page for it
      const bottom = this.doc.page.margins.bottom;
      this.doc.page.margins.bottom = 0;
      this.y = PAGE.height - MARGIN - 10;
      this.cell(footer, MARGIN, WIDTH - 90, { size: 7, color: MUTED });
      this.cell(`Página ${i + 1} de ${range.count}`, MARGIN + WIDTH - 90, 90, {
        size: 7,
        color: MUTED,
        align: 'right',
      });
      this.doc.page.margins.bottom = bottom;
    }
    const chunks: Buffer[] = [];
    const done = new Promise<Buffer>((resolve, reject) => {
      this.doc.on('data', (c: Buffer) => chunks.push(c));
      this.doc.on('end', () => resolve(Buffer.concat(chunks)));
      this.doc.on('error', reject);
    });
    this.doc.end();
    return done;
  }
}

type Header = Pick<StatementDocument, 'business' | 'client' | 'credit'>;

/** The business and the document's title, then the client and the credit side by side. */
function top(s: Sheet, h: Header, title: string, date: string) {
  s.cell(h.business.name, MARGIN, WIDTH * 0.6, { size: 16, bold: true });
  s.cell(title, MARGIN + WIDTH * 0.6, WIDTH * 0.4, { size: 12, bold: true, align: 'right' });
  s.y += 18;
  s.cell(date, MARGIN + WIDTH * 0.5, WIDTH * 0.5, { size: 9, align: 'right', color: MUTED });
  s.y += 16;
  s.rule(INK);
  const half = WIDTH / 2;
  const c = h.credit;
  const left = s.pairs(
    [
      ['Cliente', fullName(h.client)],
      ['DNI', dni(h.client.dni)],
      ['CUIT/CUIL', cuit(h.client.cuit)],
    ],
    MARGIN,
    half - 10,
    60,
  );
  const right = s.pairs(
    [
      ['Crédito Nº', String(c.sequential_id)],
      ['Estado', CREDIT_STATUS[c.status] ?? c.status],
      ['Fecha de inicio', fecha(c.start_date)],
      ['Monto otorgado', pesos(c.amount)],
      ['Total a devolver', pesos(c.total)],
      ['Sucursal', c.branch_name ?? '—'],
    ],
    MARGIN + half,
    half,
    90,
  );
  s.y = Math.max(left, right) + 4;
  s.rule();
}

/**
 * The columns that apply (`show` false leaves one out: a fee the credit does not have), their
 * widths scaled to fill the page's width: a wider table's cells shrink their text to fit.
 */
function fit(columns: (Column & { show?: boolean })[]): { columns: Column[]; shown: boolean[] } {
  const shown = columns.map((c) => c.show !== false);
  const kept = columns.filter((_, k) => shown[k]);
  const total = kept.reduce((t, c) => t + c.width, 0);
  return {
    columns: kept.map(({ show: _, ...c }) => ({ ...c, width: (c.width * WIDTH) / total })),
    shown,
  };
}

/** The row's values for the columns `fit` kept. */
const keep = (shown: boolean[], row: string[]) => row.filter((_, k) => shown[k]);

const nonZero = (xs: (number | null)[]) => xs.some((x) => x !== null && x !== 0);

const sum = (xs: (number | null)[]) => xs.reduce<Dec>((t, x) => t.plus(money(x ?? 0)), new Dec(0)).toFixed(2);
const part = (x: number | null) => (x === null ? '—' : pesos(x));

/** "Canal: Red Link · Referencia: 000123" (what the payment carries of the two). */
function channelAndReference(p: { channel: string | null; external_reference: string | null }): string {
  return [p.channel ? `Canal: ${p.channel}` : '', p.external_reference ? `Referencia: ${p.external_reference}` : '']
    .filter(Boolean)
    .join(' · ');
}

/** The statement as PDF. `timezone`: the business's, for the instants shown as dates (a reversal). */
export function renderStatementPdf(st: StatementDocument, o: { timezone: string; now: Date }): Promise<Buffer> {
  const c = st.credit;
  const s = new Sheet({
    title: `Estado de cuenta - Crédito Nº ${c.sequential_id}`,
    author: st.business.name,
    subject: `Estado de cuenta de ${fullName(st.client)} al ${fecha(st.as_of)}`,
    created: o.now,
  });
  top(s, st, 'ESTADO DE CUENTA', `Al ${fecha(st.as_of)}`);

  s.heading('Cronograma de cuotas');
  const inst = st.installments;
  const b = st.balance;
  // the insurance, the admin fees, the charges and what was waived: columns only when the credit has them
  const withInsurance = nonZero(inst.map((i) => i.insurance));
  const withFees = nonZero(inst.map((i) => i.fees));
  const withCharges = nonZero(inst.map((i) => i.charges));
  const withWaived = nonZero(inst.map((i) => i.waived));
  const schedule = fit([
    { title: 'Cuota', width: 27 },
    { title: 'Vencimiento', width: 49 },
    { title: 'Importe', width: 56, align: 'right' },
    { title: 'Capital', width: 54, align: 'right' },
    { title: 'Interés', width: 50, align: 'right' },
    { title: 'IVA', width: 44, align: 'right' },
    { title: 'Seguro', width: 46, align: 'right', show: withInsurance },
    { title: 'Gastos adm.', width: 46, align: 'right', show: withFees },
    { title: 'Punitorios', width: 48, align: 'right' },
    { title: 'Cargos', width: 46, align: 'right', show: withCharges },
    { title: 'Condonado', width: 48, align: 'right', show: withWaived },
    { title: 'Pagado', width: 54, align: 'right' },
    { title: 'Saldo', width: 56, align: 'right' },
    { title: 'Estado', width: WIDTH - 438, indent: 6 },
  ]);
  s.table(
    schedule.columns,
    inst.map((i) =>
      keep(schedule.shown, [
        String(i.number),
        fecha(i.due_date),
        pesos(i.amount),
        part(i.principal),
        part(i.interest),
        part(i.vat),
        pesos(i.insurance),
        pesos(i.fees),
        pesos(money(i.punitory_posted).plus(i.punitory_accrued).toFixed(2)),
        pesos(i.charges),
        pesos(i.waived === 0 ? 0 : -i.waived),
        pesos(i.paid),
        pesos(i.outstanding),
        installmentState(i),
      ]),
    ),
    keep(schedule.shown, [
      'Total',
      '',
      pesos(sum(inst.map((i) => i.amount))),
      inst.some((i) => i.principal === null) ? '' : pesos(sum(inst.map((i) => i.principal))),
      inst.some((i) => i.interest === null) ? '' : pesos(sum(inst.map((i) => i.interest))),
      inst.some((i) => i.vat === null) ? '' : pesos(sum(inst.map((i) => i.vat))),
      pesos(b.insurance),
      pesos(b.fees),
      pesos(money(b.punitory_posted).plus(b.punitory_accrued).toFixed(2)),
      pesos(b.charges),
      pesos(b.waived === 0 ? 0 : -b.waived),
      pesos(b.paid),
      pesos(b.outstanding),
      '',
    ]),
  );

  s.heading('Pagos registrados');
  if (st.payments.length === 0) s.para('No hay pagos registrados.', { color: MUTED });
  else {
    const counted = st.payments.filter((p) => p.reversed_at === null);
    s.table(
      [
        { title: 'Fecha', width: 62 },
        { title: 'Importe', width: 80, align: 'right' },
        { title: 'Medio', width: 82, indent: 12 },
        { title: 'Sucursal', width: 100 },
        { title: 'Observaciones', width: WIDTH - 324 },
      ],
      st.payments.map((p) => [
        fecha(p.paid_on),
        pesos(p.amount),
        p.origin === 'refinance' ? '—' : (PAYMENT_METHOD[p.method] ?? p.method),
        p.branch_name ?? '—',
        [
          p.origin === 'refinance' ? 'Cancelación por refinanciación (sin movimiento de dinero)' : '',
          channelAndReference(p),
          p.reversed_at === null ? '' : `ANULADO el ${fechaDe(p.reversed_at, o.timezone)}`,
        ]
          .filter(Boolean)
          .join('; '),
      ]),
      [
        'Total',
        pesos(sum(counted.map((p) => p.amount))),
        '',
        '',
        st.payments.length > counted.length ? 'sin los anulados' : '',
      ],
      (r) => {
        const p = st.payments[r]!;
        return p.reversed_at !== null && p.reversal_reason ? `Motivo de la anulación: ${p.reversal_reason}` : undefined;
      },
    );
  }

  s.heading(`Saldo al ${fecha(st.as_of)}`);
  const late = inst.filter((i) => i.overdue && i.outstanding > 0);
  const next = inst.find((i) => !i.overdue && i.outstanding > 0);
  const end = s.pairs(
    [
      ['Importe de las cuotas', pesos(sum(inst.map((i) => i.amount)))],
      ['Punitorios registrados', pesos(b.punitory_posted)],
      ['Punitorios devengados a la fecha', pesos(b.punitory_accrued)],
      ...(b.charges === 0 ? [] : [['Cargos por gestión de cobranza', pesos(b.charges)] as [string, string]]),
      ...(b.waived === 0 ? [] : [['Condonado', `- ${pesos(b.waived)}`] as [string, string]]),
      ['Total pagado', `- ${pesos(b.paid)}`],
    ],
    MARGIN,
    WIDTH / 2,
    170,
  );
  s.pairs(
    [
      [
        'Cuotas vencidas impagas',
        late.length ? `${late.length} (${pesos(sum(late.map((i) => i.outstanding)))})` : 'Ninguna',
      ],
      ['Próximo vencimiento', next ? `${fecha(next.due_date)} (${pesos(next.outstanding)})` : '—'],
    ],
    MARGIN + WIDTH / 2,
    WIDTH / 2,
    130,
  );
  s.y = end + 2;
  s.rule(INK);
  s.cell(b.outstanding < 0 ? 'Saldo a favor del cliente' : 'Saldo adeudado', MARGIN, 250, { size: 12, bold: true });
  s.cell(pesos(Math.abs(b.outstanding)), MARGIN + WIDTH - 200, 200, { size: 12, bold: true, align: 'right' });
  s.y += 22;
  s.para(
    'Los punitorios devengados se calculan al día de emisión y cambian con cada día de atraso. ' +
      'Los importes de las cuotas incluyen el IVA cuando corresponde' +
      (withInsurance || withFees
        ? ', el seguro de vida y los gastos administrativos (su IVA, cuando lo tienen, está en la columna IVA).'
        : '.') +
      (withCharges ? ' Los cargos por gestión de cobranza incluyen su IVA.' : ''),
    { size: 7.5, color: MUTED },
  );
  return s.finish(`${st.business.name} · Estado de cuenta del crédito Nº ${c.sequential_id} al ${fecha(st.as_of)}`);
}

/** The receipt as PDF; a reversed payment is marked ANULADO with its date and reason. */
export function renderReceiptPdf(r: ReceiptDocument, o: { timezone: string; now: Date }): Promise<Buffer> {
  const p = r.payment;
  const c = r.credit;
  const s = new Sheet({
    title: `Recibo de pago - Crédito Nº ${c.sequential_id}`,
    author: r.business.name,
    subject: `Pago de ${fullName(r.client)} del ${fecha(p.paid_on)}`,
    created: o.now,
  });
  top(s, r, 'RECIBO DE PAGO', `Emitido el ${fecha(r.as_of)}`);

  if (p.reversed_at !== null) {
    const text = `PAGO ANULADO el ${fechaDe(p.reversed_at, o.timezone)}${p.reversal_reason ? `. Motivo: ${p.reversal_reason}` : ''}`;
    s.doc.font('Helvetica-Bold').fontSize(11);
    const height = s.doc.heightOfString(winAnsi(text), { width: WIDTH - 16 }) + 12;
    s.doc.rect(MARGIN, s.y, WIDTH, height).lineWidth(1.5).strokeColor(ALERT).stroke();
    s.y += 6;
    s.para(text, { size: 11, bold: true, color: ALERT, x: MARGIN + 8, width: WIDTH - 16 });
    s.y += 8;
  }

  const who = `${fullName(r.client)}, DNI ${dni(r.client.dni)}${r.client.cuit ? `, CUIT/CUIL ${cuit(r.client.cuit)}` : ''}`;
  const where = p.branch_name ? ` en la sucursal ${p.branch_name}` : '';
  s.para(
    p.origin === 'refinance'
      ? `Cancelación del saldo del crédito Nº ${c.sequential_id} de ${who} por su refinanciación, el ${fecha(p.paid_on)} ` +
          '(sin movimiento de dinero: el saldo pasó al crédito nuevo).'
      : `Recibimos de ${who} la suma de ${pesos(p.amount)} en pago del crédito Nº ${c.sequential_id}, el ${fecha(p.paid_on)}${where}.`,
    { size: 10, gap: 8 },
  );
  if (p.origin !== 'refinance')
    s.para(
      [`Medio de pago: ${PAYMENT_METHOD[p.method] ?? p.method}`, channelAndReference(p)].filter(Boolean).join(' · '),
      { size: 9, gap: 6 },
    );
  s.y += 6;
  s.cell('Importe', MARGIN, 100, { size: 10, color: MUTED });
  s.y -= 6;
  s.cell(pesos(p.amount), MARGIN + 100, 250, { size: 18, bold: true });
  s.y += 26;
  s.cell(`Comprobante de pago ${p.id}`, MARGIN, WIDTH, { size: 7.5, color: MUTED });
  s.y += 14;

  s.heading('Aplicación del pago');
  const a = r.applied;
  // in the order the payment was applied (docs/domain.md, "Fees and charges"); the charges, the
  // insurance and the fees (each with its VAT) only when the payment paid some
  const withCharges = nonZero(a.map((x) => x.charges));
  const withInsurance = nonZero(a.map((x) => x.insurance));
  const withFees = nonZero(a.map((x) => x.fees));
  const applied = fit([
    { title: 'Cuota', width: 32 },
    { title: 'Vencimiento', width: 56 },
    { title: 'Cargos', width: 56, align: 'right', show: withCharges },
    { title: 'Punitorios', width: 62, align: 'right' },
    { title: 'Gastos adm.', width: 56, align: 'right', show: withFees },
    { title: 'Seguro', width: 56, align: 'right', show: withInsurance },
    { title: 'IVA', width: 56, align: 'right' },
    { title: 'Interés', width: 62, align: 'right' },
    { title: 'Capital', width: 66, align: 'right' },
    { title: 'Total aplicado', width: 86, align: 'right' },
    { title: 'Saldo de la cuota', width: WIDTH - 420, align: 'right' },
  ]);
  s.table(
    applied.columns,
    a.map((x) =>
      keep(applied.shown, [
        String(x.number),
        fecha(x.due_date),
        pesos(x.charges),
        pesos(x.punitory),
        pesos(x.fees),
        pesos(x.insurance),
        part(x.vat),
        part(x.interest),
        part(x.principal),
        pesos(x.amount),
        pesos(x.outstanding_after),
      ]),
    ),
    keep(applied.shown, [
      'Total',
      '',
      pesos(sum(a.map((x) => x.charges))),
      pesos(sum(a.map((x) => x.punitory))),
      pesos(sum(a.map((x) => x.fees))),
      pesos(sum(a.map((x) => x.insurance))),
      a.some((x) => x.vat === null) ? '' : pesos(sum(a.map((x) => x.vat))),
      a.some((x) => x.interest === null) ? '' : pesos(sum(a.map((x) => x.interest))),
      a.some((x) => x.principal === null) ? '' : pesos(sum(a.map((x) => x.principal))),
      pesos(sum(a.map((x) => x.amount))),
      '',
    ]),
  );
  if (withCharges || withInsurance || withFees)
    s.para('Los cargos, el seguro y los gastos administrativos incluyen su IVA; la columna IVA es la del interés.', {
      size: 7.5,
      color: MUTED,
    });

  s.heading('Saldo del crédito después de este pago');
  const b = r.balance_after;
  const end = s.pairs(
    [
      ['Total pagado hasta este pago', pesos(b.paid)],
      ['Punitorios registrados', pesos(b.punitory_posted)],
      ...(b.charges === 0 ? [] : [['Cargos por gestión de cobranza', pesos(b.charges)] as [string, string]]),
      ...(b.waived === 0 ? [] : [['Condonado', pesos(b.waived)] as [string, string]]),
    ],
    MARGIN,
    WIDTH,
    170,
  );
  s.y = end + 2;
  s.rule(INK);
  s.cell(b.outstanding < 0 ? 'Saldo a favor del cliente' : 'Saldo adeudado', MARGIN, 250, { size: 12, bold: true });
  s.cell(pesos(Math.abs(b.outstanding)), MARGIN + WIDTH - 200, 200, { size: 12, bold: true, align: 'right' });
  s.y += 60;

  s.ensure(40);
  s.doc
    .moveTo(MARGIN + WIDTH - 200, s.y)
    .lineTo(MARGIN + WIDTH, s.y)
    .lineWidth(0.5)
    .strokeColor(INK)
    .stroke();
  s.y += 4;
  s.cell(`Firma y sello · ${r.business.name}`, MARGIN + WIDTH - 200, 200, { size: 8, color: MUTED, align: 'right' });
  return s.finish(`${r.business.name} · Recibo de pago del crédito Nº ${c.sequential_id} · ${fecha(p.paid_on)}`);
}

// ---- the receipt on 80 mm roll paper (a counter's thermal printer)

const MM = 72 / 25.4;
/** 80 mm wide; 4 mm margins leave the 72 mm a thermal printer's head prints */
const ROLL = { width: 80 * MM, margin: 4 * MM };
const ROLL_WIDTH = ROLL.width - 2 * ROLL.margin;

/**
 * The receipt on an 80 mm roll: one column 72 mm wide, the page as tall as its content (drawn once
 * to measure it, then again on a page of that height), the same facts as the A4 receipt.
 */
export async function renderReceipt80mmPdf(r: ReceiptDocument, o: { timezone: string; now: Date }): Promise<Buffer> {
  const height = drawRoll(null, r, o);
  const doc = new PDFDocument({
    size: [ROLL.width, Math.ceil(height + ROLL.margin)],
    margin: ROLL.margin,
    lang: 'es-AR',
    info: {
      Title: winAnsi(`Recibo de pago - Crédito Nº ${r.credit.sequential_id}`),
      Author: winAnsi(r.business.name),
      Subject: winAnsi(`Pago de ${fullName(r.client)} del ${fecha(r.payment.paid_on)}`),
    },
  });
  doc.info.CreationDate = o.now;
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  drawRoll(doc, r, o);
  doc.end();
  return done;
}

/** Draws the roll receipt on doc (or only measures it, doc null); the height used, in points. */
function drawRoll(target: PDFKit.PDFDocument | null, r: ReceiptDocument, o: { timezone: string }): number {
  // measuring needs a document too: a tall scratch one, never ended
  const doc = target ?? new PDFDocument({ size: [ROLL.width, 14_400], margin: ROLL.margin });
  const x = ROLL.margin;
  let y = ROLL.margin;
  const text = (
    t: string,
    f: { size?: number; bold?: boolean; color?: string; align?: 'left' | 'center' | 'right' } = {},
  ) => {
    doc.font(f.bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(f.size ?? 8);
    const s = winAnsi(t);
    const h = doc.heightOfString(s, { width: ROLL_WIDTH });
    doc
      .fillColor(f.color ?? INK)
      .text(s, x, y, { width: ROLL_WIDTH, align: f.align ?? 'left' })
      .fillColor(INK);
    y += h + 2;
  };
  /** a label on the left and its figure on the right of one line */
  const line = (label: string, value: string, f: { size?: number; bold?: boolean } = {}) => {
    const size = f.size ?? 8;
    doc.font(f.bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(size);
    const v = winAnsi(value);
    const vw = doc.widthOfString(v);
    const l = winAnsi(label);
    const lh = doc.heightOfString(l, { width: ROLL_WIDTH - vw - 6 });
    doc.text(l, x, y, { width: ROLL_WIDTH - vw - 6 });
    doc.text(v, x + ROLL_WIDTH - vw, y, { lineBreak: false });
    y += Math.max(lh, size * 1.2) + 2;
  };
  const rule = (dashed = true) => {
    y += 2;
    doc
      .moveTo(x, y)
      .lineTo(x + ROLL_WIDTH, y)
      .lineWidth(0.5)
      .strokeColor(INK);
    if (dashed) doc.dash(2, { space: 2 });
    doc.stroke().undash();
    y += 4;
  };

  const p = r.payment;
  const c = r.credit;
  text(r.business.name, { size: 11, bold: true, align: 'center' });
  text('RECIBO DE PAGO', { size: 10, bold: true, align: 'center' });
  text(`Emitido el ${fecha(r.as_of)}`, { size: 7.5, color: MUTED, align: 'center' });
  rule(false);
  if (p.reversed_at !== null) {
    text(`PAGO ANULADO el ${fechaDe(p.reversed_at, o.timezone)}`, { size: 10, bold: true, color: ALERT });
    if (p.reversal_reason) text(`Motivo: ${p.reversal_reason}`, { size: 8, color: ALERT });
    rule(false);
  }
  text(`Cliente: ${fullName(r.client)}`, { bold: true });
  text(`DNI ${dni(r.client.dni)}${r.client.cuit ? ` · CUIT/CUIL ${cuit(r.client.cuit)}` : ''}`);
  line('Crédito Nº', String(c.sequential_id));
  line('Fecha de pago', fecha(p.paid_on));
  if (p.branch_name) line('Sucursal', p.branch_name);
  if (p.origin !== 'refinance') {
    line('Medio de pago', PAYMENT_METHOD[p.method] ?? p.method);
    if (p.channel) line('Canal', p.channel);
    if (p.external_reference) text(`Referencia: ${p.external_reference}`);
  }
  if (p.origin === 'refinance')
    text('Cancelación del saldo por refinanciación (sin movimiento de dinero: el saldo pasó al crédito nuevo).', {
      size: 7.5,
    });
  rule();
  line('IMPORTE', pesos(p.amount), { size: 12, bold: true });
  rule();
  text('Aplicación del pago', { bold: true });
  for (const a of r.applied) {
    line(`Cuota ${a.number} · vto. ${fecha(a.due_date)}`, pesos(a.amount), { bold: true });
    if (money(a.charges).gt(0)) line('  Cargos', pesos(a.charges));
    if (money(a.punitory).gt(0)) line('  Punitorios', pesos(a.punitory));
    if (money(a.fees).gt(0)) line('  Gastos adm.', pesos(a.fees));
    if (money(a.insurance).gt(0)) line('  Seguro', pesos(a.insurance));
    if (a.vat !== null && money(a.vat).gt(0)) line('  IVA', pesos(a.vat));
    if (a.interest !== null) line('  Interés', pesos(a.interest));
    if (a.principal !== null) line('  Capital', pesos(a.principal));
    line('  Saldo de la cuota', pesos(a.outstanding_after));
  }
  rule();
  const b = r.balance_after;
  line('Total pagado hasta este pago', pesos(b.paid));
  line('Punitorios registrados', pesos(b.punitory_posted));
  if (b.charges !== 0) line('Cargos por gestión de cobranza', pesos(b.charges));
  if (b.waived !== 0) line('Condonado', pesos(b.waived));
  line(b.outstanding < 0 ? 'Saldo a favor del cliente' : 'Saldo adeudado', pesos(Math.abs(b.outstanding)), {
    size: 10,
    bold: true,
  });
  rule();
  text(`Comprobante ${p.id}`, { size: 6.5, color: MUTED });
  y += 22;
  doc
    .moveTo(x + ROLL_WIDTH * 0.25, y)
    .lineTo(x + ROLL_WIDTH * 0.75, y)
    .lineWidth(0.5)
    .strokeColor(INK)
    .stroke();
  y += 3;
  text(`Firma y sello · ${r.business.name}`, { size: 7, color: MUTED, align: 'center' });
  return y;
}
