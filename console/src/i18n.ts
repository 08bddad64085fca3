// Words and formats. The console speaks Spanish (es-AR) unless the person chose English; the
// choice is kept in this browser's localStorage per user (docs/console.md, "Language"). The texts
// are written in English in the code; ES below gives each its Spanish. Money and dates follow
// Argentina's conventions in both languages ($ 1.234,56, dd/mm/aaaa), through Intl.
import { useSyncExternalStore } from 'react';
import { fmtMoney } from './format.ts';

export { fmtMoney, fmtNumber } from './format.ts';

export type Lang = 'es' | 'en';

const ES: Record<string, string> = {
  'Sign in': 'Ingresar',
  'Sign out': 'Salir',
  Email: 'Correo electrónico',
  Password: 'Contraseña',
  'The same again': 'Repetir la contraseña',
  'Choose a password': 'Elegir una contraseña',
  'Set password': 'Guardar contraseña',
  'The two passwords differ.': 'Las dos contraseñas no coinciden.',
  'Your password is set. Sign in with your email and this password.':
    'Tu contraseña quedó guardada. Ingresá con tu correo y esta contraseña.',
  'This link has no token: open the whole link you were sent.':
    'Este enlace no trae el código: abrí el enlace completo que te enviaron.',
  'Your session ended. Sign in again.': 'Tu sesión terminó. Volvé a ingresar.',
  'You signed out.': 'Cerraste la sesión.',
  'The service did not answer; try again.': 'El servicio no respondió; probá de nuevo.',
  'At least 12 characters': 'Al menos 12 caracteres',
  Language: 'Idioma',
  Home: 'Inicio',
  Clients: 'Clientes',
  Client: 'Cliente',
  Collections: 'Cobranzas',
  Plans: 'Planes',
  Branches: 'Sucursales',
  Branch: 'Sucursal',
  Holidays: 'Feriados',
  Users: 'Usuarios',
  'API keys': 'Claves de API',
  Webhooks: 'Webhooks',
  'Audit log': 'Auditoría',
  Leads: 'Solicitudes web',
  Businesses: 'Empresas',
  Menu: 'Menú',
  'Skip to content': 'Ir al contenido',
  'Portfolio summary': 'Resumen de cartera',
  'as of': 'al',
  Outstanding: 'Saldo',
  Overdue: 'Vencido',
  Disbursed: 'Desembolsado',
  'Collected today': 'Cobrado hoy',
  'Collected this month': 'Cobrado en el mes',
  'Portfolio at risk': 'Cartera en riesgo',
  'Debtor situations': 'Situación de deudores',
  Situation: 'Situación',
  'Per branch': 'Por sucursal',
  Amount: 'Monto',
  Ratio: 'Proporción',
  'Active credits': 'Créditos activos',
  Search: 'Buscar',
  'DNI, CUIT, name or email': 'DNI, CUIT, nombre o correo',
  'New client': 'Nuevo cliente',
  Name: 'Nombre',
  'First name': 'Nombre',
  'Last name': 'Apellido',
  Phone: 'Teléfono',
  City: 'Ciudad',
  Province: 'Provincia',
  Street: 'Calle',
  Number: 'Número',
  'Zip code': 'Código postal',
  Save: 'Guardar',
  Cancel: 'Cancelar',
  Edit: 'Editar',
  Delete: 'Eliminar',
  Close: 'Cerrar',
  Confirm: 'Confirmar',
  Previous: 'Anterior',
  Next: 'Siguiente',
  Loading: 'Cargando',
  'Nothing here yet.': 'Todavía no hay nada acá.',
  '{from}–{to} of {total}': '{from}–{to} de {total}',
  Saved: 'Guardado',
  Data: 'Datos',
  Verifications: 'Verificaciones',
  'Central bank': 'BCRA',
  'Tax authority': 'ARCA',
  'Run central bank lookup': 'Consultar BCRA',
  'Run tax authority lookup': 'Consultar ARCA',
  Files: 'Archivos',
  'Upload a file': 'Subir un archivo',
  'Drop a file here or choose one': 'Soltá un archivo acá o elegí uno',
  Download: 'Descargar',
  'Upload links': 'Enlaces de carga',
  'New upload link': 'Nuevo enlace de carga',
  Copy: 'Copiar',
  Copied: 'Copiado',
  Revoke: 'Revocar',
  Revoked: 'Revocado',
  Expires: 'Vence',
  Credits: 'Créditos',
  Credit: 'Crédito',
  'Grant a credit': 'Otorgar un crédito',
  Plan: 'Plan',
  'Start date': 'Fecha de inicio',
  Simulation: 'Simulación',
  Grant: 'Otorgar',
  Installment: 'Cuota',
  Installments: 'Cuotas',
  'Due date': 'Vencimiento',
  Principal: 'Capital',
  Interest: 'Interés',
  VAT: 'IVA',
  Total: 'Total',
  Punitory: 'Punitorio',
  Paid: 'Pagado',
  Status: 'Estado',
  'Days late': 'Días de atraso',
  Balance: 'Saldo',
  Payments: 'Pagos',
  'Register a payment': 'Registrar un pago',
  Date: 'Fecha',
  Method: 'Medio',
  Reference: 'Referencia',
  Pay: 'Cobrar',
  Receipt: 'Recibo',
  'for an 80 mm roll printer': 'para una impresora de rollo de 80 mm',
  Reverse: 'Anular',
  Reason: 'Motivo',
  Reversed: 'Anulado',
  'Reverse this payment': 'Anular este pago',
  'The payment stays in the history as reversed and its amount is owed again.':
    'El pago queda en el historial como anulado y su monto vuelve a deberse.',
  'Payoff quote': 'Cancelación anticipada',
  'Pay it off': 'Cancelar el total',
  Statement: 'Estado de cuenta',
  Contract: 'Contrato',
  'Promissory note': 'Pagaré',
  'Write off': 'Pasar a incobrable',
  Refinance: 'Refinanciar',
  'Cancel credit': 'Anular crédito',
  Ledger: 'Libro mayor',
  Type: 'Tipo',
  Origin: 'Origen',
  'Effective date': 'Fecha efectiva',
  // a ledger entry's type and origin (docs/domain.md, "The ledger")
  entry_installment: 'Cuota',
  entry_punitory: 'Punitorio',
  entry_payment: 'Pago',
  entry_charge: 'Cargo',
  entry_waiver: 'Condonación',
  origin_schedule: 'Cronograma',
  origin_payment: 'Pago',
  origin_accrual: 'Devengamiento',
  origin_reversal: 'Anulación',
  origin_rebate: 'Bonificación',
  origin_refinance: 'Refinanciación',
  origin_correction: 'Corrección',
  origin_fee: 'Cargo',
  origin_waiver: 'Condonación',
  // plans, keys, the audit log: the API's words said in Spanish
  cut_monthly: 'Día fijo del mes',
  cut_fixed: 'Desde el otorgamiento',
  amortization_flat: 'Interés directo',
  amortization_french: 'Sistema francés',
  scope_read: 'Solo lectura',
  scope_full: 'Completo',
  Prefix: 'Prefijo',
  'client.created, payment.created, … (* = all)': 'client.created, payment.created, … (* = todos)',
  '{what}: none yet.': '{what}: todavía no hay.',
  'command line': 'línea de comandos',
  table_clients: 'Clientes',
  table_credits: 'Créditos',
  table_installments: 'Cuotas',
  table_ledger: 'Libro mayor',
  table_payments: 'Pagos',
  table_waivers: 'Condonaciones',
  table_applications: 'Solicitudes de crédito',
  table_promises: 'Promesas',
  table_client_notes: 'Notas',
  table_credit_guarantors: 'Garantes',
  table_credit_configs: 'Planes',
  table_branches: 'Sucursales',
  table_holidays: 'Feriados',
  table_client_files: 'Archivos',
  table_upload_sessions: 'Enlaces de carga',
  table_verifications: 'Verificaciones',
  table_leads: 'Solicitudes web',
  table_payment_imports: 'Importaciones de pagos',
  table_business_settings: 'Configuración',
  table_users: 'Usuarios',
  table_api_keys: 'Claves de API',
  table_webhook_endpoints: 'Webhooks',
  table_impersonations: 'Actuaciones de operadores',
  table_businesses: 'Empresas',
  action_INSERT: 'Alta',
  action_UPDATE: 'Cambio',
  action_DELETE: 'Baja',
  'Choose a plan and an amount to see the installments.': 'Elegí un plan y un monto para ver las cuotas.',
  // waivers (admins)
  Waive: 'Condonar',
  'Waive on installment {n}': 'Condonar en la cuota {n}',
  Waivers: 'Condonaciones',
  'Amount waived': 'Monto condonado',
  Recorded: 'Registrada',
  'What to waive': 'Qué condonar',
  // closing a credit paid beyond its payoff (docs/domain.md, "Early payoff")
  'To refund to the client': 'A devolver al cliente',
  'Paid in advance': 'Pagado por adelantado',
  'Close and refund': 'Cancelar y devolver',
  'Close the credit and refund {amount}': 'Cancelar el crédito y devolver {amount}',
  'What was paid exceeds what settles the credit by {amount}: nothing is left to pay.':
    'Lo pagado supera en {amount} lo que cancela el crédito: no queda nada por pagar.',
  'The credit closes as of {date}: {rebate} of interest not owed is written off (a rebate, not cash) and {amount} paid beyond what settles it is to be handed back to the client. No payment is registered; the close is listed among the payments.':
    'El crédito se cancela al {date}: se bonifican {rebate} de interés no devengado (no es dinero) y hay que devolverle al cliente {amount} pagados de más. No se registra ningún pago; el cierre queda en la lista de pagos.',
  'The credit is closed. Hand back to the client: {amount}.':
    'El crédito quedó cancelado. Devolverle al cliente: {amount}.',
  'Closed with a refund of {amount}': 'Cancelado con devolución de {amount}',
  'What was waived': 'Qué se condonó',
  'Collection charges': 'Gastos de cobranza',
  Waivable: 'Condonable',
  Waived: 'Condonado',
  Charges: 'Cargos',
  Insurance: 'Seguro',
  'Admin fees': 'Gastos',
  'VAT of the interest, the insurance and the fees': 'IVA del interés, del seguro y de los gastos',
  '{amount} of punitory of installment {n} will no longer be owed: the balance drops by that amount. It is not a payment: no cash comes in, and the waiver stays in the ledger with its reason.':
    'Se condonan {amount} de punitorios de la cuota {n}: el cliente deja de deberlos y el saldo baja en ese monto. No es un pago: no entra dinero, y la condonación queda en el libro mayor con su motivo.',
  '{amount} of collection charges of installment {n} will no longer be owed: the balance drops by that amount. It is not a payment: no cash comes in, and the waiver stays in the ledger with its reason.':
    'Se condonan {amount} de gastos de cobranza de la cuota {n}: el cliente deja de deberlos y el saldo baja en ese monto. No es un pago: no entra dinero, y la condonación queda en el libro mayor con su motivo.',
  'Write the credit off: it leaves the active portfolio and its balance is kept as written off.':
    'Pasar el crédito a incobrable: sale de la cartera activa y su saldo queda como incobrable.',
  'Cancel the credit: only possible while no payment exists; it becomes inactive.':
    'Anular el crédito: solo si no tiene pagos; queda inactivo.',
  'Refinance: the balance moves into a new credit on the chosen plan; this one closes as refinanced.':
    'Refinanciar: el saldo pasa a un crédito nuevo con el plan elegido; este queda refinanciado.',
  'Collections worklist': 'Lista de cobranza',
  'Minimum days late': 'Mínimo de días de atraso',
  'All branches': 'Todas las sucursales',
  'Export CSV': 'Exportar CSV',
  'Sort by': 'Ordenar por',
  // applications, collections, settings, notifications (docs/applications.md, docs/collections.md)
  Applications: 'Solicitudes de crédito',
  Application: 'Solicitud',
  'New application': 'Nueva solicitud',
  'Request a credit': 'Solicitar un crédito',
  'Application of {client}': 'Solicitud de {client}',
  'All statuses': 'Todos los estados',
  Submit: 'Presentar',
  'Submitted by': 'Presentada por',
  you: 'vos',
  'Decided by': 'Decidida por',
  'Decision note': 'Nota de la decisión',
  Note: 'Nota',
  'Policy checks': 'Controles de la política',
  Rule: 'Regla',
  Detail: 'Detalle',
  'The plan has no policy: nothing to check.': 'El plan no tiene política: no hay nada que controlar.',
  Approve: 'Aprobar',
  Reject: 'Rechazar',
  Withdraw: 'Retirar',
  Disburse: 'Desembolsar',
  'Approve this application': 'Aprobar esta solicitud',
  'Another person than who submitted it approves it; then it can be disbursed.':
    'La aprueba alguien distinto de quien la presentó; después se puede desembolsar.',
  'It failed a check: say why you approve it anyway.': 'No pasó un control: escribí por qué la aprobás igual.',
  'Reject this application': 'Rechazar esta solicitud',
  'The application is closed as rejected, with your reason.': 'La solicitud se cierra como rechazada, con tu motivo.',
  'Withdraw this application': 'Retirar esta solicitud',
  'The application is closed as withdrawn; nothing is granted.':
    'La solicitud se cierra como retirada; no se otorga nada.',
  'Disburse this application': 'Desembolsar esta solicitud',
  "The credit is granted with the application's plan and amount, and the money handed over as you say.":
    'Se otorga el crédito con el plan y el monto de la solicitud, y el dinero se entrega como indiques.',
  'External reference': 'Referencia externa',
  'Go to the credit': 'Ir al crédito',
  'Credit granted': 'Crédito otorgado',
  'No client matches.': 'Ningún cliente coincide.',
  'Type to search': 'Escribí para buscar',
  Submitted: 'Presentada',
  Decided: 'Decidida',
  submitted: 'presentada',
  approved: 'aprobada',
  rejected: 'rechazada',
  withdrawn: 'retirada',
  disbursed: 'desembolsada',
  pass: 'cumple',
  fail: 'no cumple',
  unknown: 'sin datos',
  check: 'cheque',
  max_central_bank_situation: 'Situación máxima en el BCRA',
  max_total_debt: 'Deuda total máxima',
  require_tax_active: 'CUIT activa en ARCA',
  'Worst situation {worst} (at most {max}), central bank on {when}':
    'Peor situación {worst} (máximo {max}), BCRA al {when}',
  'Total debt {debt} (at most {max}), central bank on {when}': 'Deuda total {debt} (máximo {max}), BCRA al {when}',
  'No recent central bank lookup of the client: look it up, then submit again.':
    'No hay una consulta reciente al BCRA de este cliente: consultalo y volvé a presentar.',
  'No recent tax authority lookup of the client: look it up, then submit again.':
    'No hay una consulta reciente a ARCA de este cliente: consultalo y volvé a presentar.',
  "The CUIT is not in the tax authority's register ({when})": 'La CUIT no figura en el padrón de ARCA ({when})',
  "The CUIT is {status} in the tax authority's register ({when})":
    'La CUIT figura {status} en el padrón de ARCA ({when})',
  Collector: 'Cobrador',
  'Any collector': 'Cualquier cobrador',
  'My credits': 'Mis créditos',
  'Without collector': 'Sin cobrador',
  Promise: 'Promesa',
  'Any promise': 'Cualquier promesa',
  'Pending promise': 'Promesa pendiente',
  'Broken promise': 'Promesa incumplida',
  'No promise': 'Sin promesa',
  'Most days late first': 'Más días de atraso primero',
  'Fewest days late first': 'Menos días de atraso primero',
  'Largest balance first': 'Mayor saldo primero',
  'Smallest balance first': 'Menor saldo primero',
  'Client name': 'Nombre del cliente',
  'Latest promise': 'Última promesa',
  'Last note': 'Última nota',
  Actions: 'Acciones',
  'Record a promise': 'Registrar promesa',
  'Promise to pay': 'Promesa de pago',
  'Add a note': 'Agregar nota',
  'Contact note': 'Nota de contacto',
  'Promised amount': 'Monto prometido',
  'Pay by': 'Paga el',
  'From today up to 60 days ahead.': 'Desde hoy hasta 60 días más adelante.',
  'What was said': 'Qué se habló',
  'Promises and notes': 'Promesas y notas',
  Promises: 'Promesas',
  Notes: 'Notas',
  'Cancel promise': 'Anular promesa',
  'Cancel this promise': 'Anular esta promesa',
  'The promise stays in the history as cancelled.': 'La promesa queda en el historial como anulada.',
  'Assign a collector': 'Asignar cobrador',
  'Collector of credit #{n}': 'Cobrador del crédito n.º {n}',
  Assign: 'Asignar',
  Nobody: 'Nadie',
  'Other credit': 'Otro crédito',
  'Submit as an application': 'Presentar como solicitud',
  'Installment {n}': 'Cuota {n}',
  'by {who}': 'por {who}',
  Promised: 'Prometido',
  kept: 'cumplida',
  broken: 'incumplida',
  cancelled: 'anulada',
  credit_cancelled: 'anulado',
  call: 'llamada',
  visit: 'visita',
  whatsapp: 'WhatsApp',
  email: 'correo',
  sms: 'SMS',
  Approval: 'Aprobación',
  'Credits only through applications approved by a second person':
    'Créditos solo con solicitudes aprobadas por una segunda persona',
  'Employees grant credits only through applications; admins may still grant directly.':
    'Los empleados otorgan créditos solo mediante solicitudes; los administradores pueden otorgarlos directamente.',
  'Largest amount an employee may approve': 'Monto máximo que aprueba un empleado',
  'Empty: no limit.': 'Vacío: sin límite.',
  'Payment reminders': 'Recordatorios de pago',
  'Send e-mail reminders to clients': 'Enviar recordatorios por correo a los clientes',
  'Days before the due date': 'Días antes del vencimiento',
  'Days after the due date': 'Días después del vencimiento',
  'Whole days from 0 to 365, separated by commas (e.g. 1, 7).':
    'Días enteros de 0 a 365, separados por comas (ej. 1, 7).',
  'Settings saved.': 'Configuración guardada.',
  'Write whole days separated by commas.': 'Escribí días enteros separados por comas.',
  Notifications: 'Notificaciones',
  'E-mails to clients and users, newest first.': 'Correos a clientes y usuarios, primero los más nuevos.',
  Recipient: 'Destinatario',
  Subject: 'Asunto',
  Kind: 'Tipo',
  Attempts: 'Intentos',
  Error: 'Error',
  Sent: 'Enviado',
  'All clients': 'Todos los clientes',
  queued: 'en cola',
  sent: 'enviado',
  failed: 'fallido',
  not_configured: 'sin correo configurado',
  password_link: 'enlace de contraseña',
  reminder_before_due: 'recordatorio previo',
  reminder_overdue: 'recordatorio de atraso',
  Role: 'Rol',
  'Invite a user': 'Invitar un usuario',
  'Your password (only to make an admin)': 'Tu contraseña (solo para crear un administrador)',
  'Your password': 'Tu contraseña',
  'Make {email} an admin': 'Hacer administrador a {email}',
  'An admin can do everything in the business. Confirm it is you with your own password.':
    'Un administrador puede hacer todo en el negocio. Confirmá que sos vos con tu propia contraseña.',
  'Make admin': 'Hacer administrador',
  'Business id (your administrator can tell you)': 'Id del negocio (te lo dice tu administrador)',
  Invite: 'Invitar',
  Disable: 'Deshabilitar',
  Enable: 'Habilitar',
  'Password link': 'Enlace de contraseña',
  'Send this link to the person; it works once, for 72 hours:':
    'Enviale este enlace a la persona; sirve una vez, durante 72 horas:',
  Disabled: 'Deshabilitado',
  'Last sign-in': 'Último ingreso',
  'New key': 'Nueva clave',
  Scope: 'Alcance',
  'Copy the secret now: it is not shown again.': 'Copiá el secreto ahora: no se vuelve a mostrar.',
  'Revoke this key? Systems using it stop working.':
    '¿Revocar esta clave? Los sistemas que la usan dejan de funcionar.',
  Created: 'Creado',
  'Last used': 'Último uso',
  'New plan': 'Nuevo plan',
  'Installments count': 'Cantidad de cuotas',
  'Interest rate (per period, e.g. 0.35)': 'Tasa de interés (por período, ej. 0,35)',
  'Daily punitory rate': 'Tasa punitoria diaria',
  'Cut type': 'Tipo de corte',
  Amortization: 'Amortización',
  Active: 'Activo',
  Simulate: 'Simular',
  'New branch': 'Nueva sucursal',
  Address: 'Dirección',
  'New holiday': 'Nuevo feriado',
  Endpoints: 'Destinos',
  'New endpoint': 'Nuevo destino',
  Events: 'Eventos',
  Deliveries: 'Envíos',
  Retry: 'Reintentar',
  Description: 'Descripción',
  'Signing secret (shown once):': 'Secreto de firma (se muestra una vez):',
  Table: 'Tabla',
  Action: 'Acción',
  Actor: 'Autor',
  When: 'Cuándo',
  Before: 'Antes',
  After: 'Después',
  'Older entries': 'Entradas anteriores',
  'Newest first': 'Primero las más nuevas',
  Message: 'Mensaje',
  'Requested amount': 'Monto pedido',
  Convert: 'Convertir en cliente',
  'Act as': 'Actuar como',
  'Acting as {user} ({business})': 'Actuando como {user} ({business})',
  Stop: 'Dejar de actuar',
  'Choose a business to see its users.': 'Elegí una empresa para ver sus usuarios.',
  Slug: 'Identificador',
  Timezone: 'Zona horaria',
  'Users of {name}': 'Usuarios de {name}',
  'Platform operators': 'Operadores de la plataforma',
  'You may read but not change this.': 'Podés consultar pero no modificar.',
  'You are not allowed to do this.': 'No tenés permiso para hacer esto.',
  Yes: 'Sí',
  No: 'No',
  Optional: 'Opcional',
  'Page not found': 'Página no encontrada',
  'Installment parts': 'Composición de la cuota',
  'TNA (nominal annual rate)': 'TNA (tasa nominal anual)',
  'TEA (effective annual rate)': 'TEA (tasa efectiva anual)',
  'CFT (total financial cost, effective annual)': 'CFT (costo financiero total, efectivo anual)',
  'Amount due today': 'Monto a pagar hoy',
  'No payment yet.': 'Sin pagos todavía.',
  found: 'encontrado',
  not_found: 'no encontrado',
  pending: 'pendiente',
  paid: 'pagada',
  partial: 'parcial',
  overdue: 'vencida',
  active: 'activo',
  closed: 'cerrado',
  refinanced: 'refinanciado',
  written_off: 'incobrable',
  inactive: 'inactivo',
  admin: 'administrador',
  employee: 'empleado',
  viewer: 'consulta',
  cash: 'efectivo',
  transfer: 'transferencia',
  debit: 'débito',
  card: 'tarjeta',
  collection_network: 'red de cobranza',
  other: 'otro',
  'Worst situation': 'Peor situación',
  'Total debt': 'Deuda total',
  Period: 'Período',
  Summary: 'Resumen',
  Size: 'Tamaño',
  'File name': 'Nombre del archivo',
  'Delete this file?': '¿Eliminar este archivo?',
  'The link (shown once):': 'El enlace (se muestra una vez):',
  Hours: 'Horas',
  Uses: 'Usos',
  Employee: 'Empleado',
  Granted: 'Otorgado',
  Quote: 'Cotizar',
  Rebate: 'Bonificación',
  Due: 'Exigible',
  'Credit #{n}': 'Crédito n.º {n}',
  Print: 'Imprimir',
  Settings: 'Configuración',
  More: 'Más',
  Pages: 'Páginas',
  // payments by channel, imports, the collections report, guarantors, fees
  Channel: 'Canal',
  'The network or bank it came through, e.g. Rapipago': 'La red o el banco por el que llegó, p. ej. Rapipago',
  "The channel's own number for this payment": 'El número que el canal le dio a este pago',
  'This payment was already registered.': 'Este pago ya estaba registrado.',
  'The channel {channel} already has a payment with reference {reference}: it is not paid twice.':
    'El canal {channel} ya tiene un pago con la referencia {reference}: no se cobra dos veces.',
  payment: 'pago',
  'the payment of {amount} on {date}, listed below': 'el pago de {amount} del {date}, en la lista de abajo',
  method_cash: 'Efectivo',
  method_transfer: 'Transferencia',
  method_debit: 'Débito',
  method_card: 'Tarjeta',
  method_collection_network: 'Red de cobranza',
  method_other: 'Otro',
  'Payment imports': 'Importar pagos',
  'Payment import': 'Importación de pagos',
  "A collection network's file: a header row, then one payment a line. Each line is paid as a payment at the counter would be; a bad line is rejected alone and a reference already paid is not paid twice.":
    'El archivo de una red de cobranza: una fila de encabezado y después un pago por línea. Cada línea se cobra como un pago en caja; una línea con errores se rechaza sola y una referencia ya cobrada no se cobra dos veces.',
  Columns: 'Columnas',
  Example: 'Ejemplo',
  'Import a file': 'Importar un archivo',
  'CSV file': 'Archivo CSV',
  Import: 'Importar',
  'Import of {when}': 'Importación del {when}',
  import_running: 'en curso',
  import_done: 'terminada',
  import_failed: 'fallida',
  'Recent imports': 'Importaciones recientes',
  Imported: 'Importado',
  'Imported by': 'Importado por',
  'Older imports': 'Importaciones anteriores',
  '{n} of {total} lines decided': '{n} de {total} líneas procesadas',
  Lines: 'Líneas',
  Line: 'Línea',
  Accepted: 'Aceptadas',
  Rejected: 'Rechazadas',
  Duplicates: 'Duplicadas',
  Finished: 'Terminó',
  Outcome: 'Resultado',
  'All lines': 'Todas',
  line_pending: 'pendiente',
  line_accepted: 'aceptada',
  line_rejected: 'rechazada',
  line_duplicate: 'duplicada',
  'Lines of the file': 'Líneas del archivo',
  'Download rejected lines': 'Descargar las líneas rechazadas',
  'Collections report': 'Reporte de cobranzas',
  From: 'Desde',
  To: 'Hasta',
  'Import another file': 'Importar otro archivo',
  'already used by another payment': 'ya la usa otro pago',
  'Group by': 'Agrupar por',
  Day: 'Día',
  'Payments dated from {from} to {to}': 'Pagos con fecha del {from} al {to}',
  Collected: 'Cobrado',
  'Reversed payments': 'Pagos anulados',
  'Reversed amount': 'Monto anulado',
  'Net of reversals': 'Neto de anulaciones',
  'Collections by {what}': 'Cobranzas por {what}',
  'No channel': 'Sin canal',
  'No branch': 'Sin sucursal',
  Guarantors: 'Garantes',
  'Guarantors and co-borrowers': 'Garantes y codeudores',
  role_guarantor: 'Garante',
  role_co_borrower: 'Codeudor',
  Added: 'Agregado',
  Remove: 'Quitar',
  'Remove this guarantor': 'Quitar este garante',
  'The client stops backing this credit. Nothing else changes.':
    'El cliente deja de respaldar este crédito. No cambia nada más.',
  'Add a guarantor': 'Agregar un garante',
  'Find the client': 'Buscar el cliente',
  'No client found': 'Ningún cliente coincide',
  Add: 'Agregar',
  Guarantees: 'Garantías',
  'Credits this client backs': 'Créditos que este cliente respalda',
  Borrower: 'Deudor',
  'Disbursed (cash handed over)': 'Monto a entregar',
  Fees: 'Comisiones',
  Fee: 'Comisión',
  fee_origination: 'Comisión de otorgamiento',
  fee_insurance: 'Seguro de vida sobre saldo',
  fee_admin: 'Gasto administrativo por cuota',
  'in every installment': 'en cada cuota',
  'How it is charged': 'Cómo se cobra',
  'financed: added to the installments': 'financiada: se suma a las cuotas',
  'deducted from the cash handed over': 'descontada del monto a entregar',
};

const KEY = 'lending.lang';
let current: Lang = (localStorage.getItem(KEY) as Lang | null) === 'en' ? 'en' : 'es';
let userKey: string | null = null;
const listeners = new Set<() => void>();

function apply(l: Lang) {
  current = l;
  document.documentElement.lang = l === 'es' ? 'es-AR' : 'en';
  for (const f of listeners) f();
}
apply(current);

/** The person's language: each user's own choice in this browser, else the last one used here. */
export function useUserLanguage(userId: string | null) {
  userKey = userId ? `${KEY}.${userId}` : null;
  const stored = userKey ? localStorage.getItem(userKey) : null;
  if (stored && stored !== current) apply(stored as Lang);
}

export function setLang(l: Lang) {
  localStorage.setItem(KEY, l);
  if (userKey) localStorage.setItem(userKey, l);
  apply(l);
}

export function useLang(): Lang {
  return useSyncExternalStore(
    (f) => {
      listeners.add(f);
      return () => listeners.delete(f);
    },
    () => current,
  );
}

/** A keyed word in English: method_collection_network → Collection network. */
const keyed = (text: string) => {
  const m = /^(?:method|entry|origin|cut|amortization|scope|table|action|credit|role|fee|import|line)_(.+)$/.exec(text);
  return m ? m[1]![0]!.toUpperCase() + m[1]!.slice(1).replaceAll('_', ' ') : text;
};

export function t(text: string, vars: Record<string, string | number> = {}): string {
  let s = current === 'es' ? (ES[text] ?? text) : keyed(text);
  for (const [k, v] of Object.entries(vars)) s = s.replace(`{${k}}`, String(v));
  return s;
}

// The API answers in English: the messages a person meets in daily work (who may decide an
// application, its limit, a note it needs) are said here in Spanish, with the API's own figures.
const API_ES: [RegExp, (m: RegExpExecArray) => string][] = [
  [
    /^an application is decided by someone other than who submitted it/,
    () =>
      'Una solicitud la decide una persona distinta de quien la presentó: pedile a otro empleado o a un administrador que la decida.',
  ],
  [
    /^employees approve up to ([\d.]+) \(approval\.employee_limit\); an admin must approve ([\d.]+)/,
    (m) =>
      `Los empleados aprueban hasta ${fmtMoney(m[1])} (límite de la configuración); esta solicitud de ${fmtMoney(m[2])} la tiene que aprobar un administrador.`,
  ],
  [
    /^the application failed (.+): approving it anyway needs a note/,
    (m) =>
      `La solicitud no cumple: ${(m[1] ?? '')
        .split(', ')
        .map((r) => t(r))
        .join(', ')}. Para aprobarla igual, escribí una nota que diga por qué.`,
  ],
  [
    /^required to approve over a failed check/,
    () => 'Obligatoria para aprobar una solicitud que no cumple un control.',
  ],
  [
    /^the application is (\w+): only a submitted application can be/,
    (m) => `La solicitud ya está ${t(m[1] ?? '')}: solo se decide o retira una solicitud presentada.`,
  ],
  [
    /^credits of this business need an approved application/,
    () => 'Este negocio otorga créditos solo con una solicitud aprobada por otra persona: presentala como solicitud.',
  ],
  [/^the application was disbursed already/, () => 'La solicitud ya fue desembolsada.'],
  [
    /^the application is (\w+): only an approved one is disbursed/,
    (m) => `La solicitud está ${t(m[1] ?? '')}: solo se desembolsa una solicitud aprobada.`,
  ],
  [
    /^an application is withdrawn by who submitted it/,
    () => 'Una solicitud la retira quien la presentó o un administrador.',
  ],
  [
    /^promised_for must be between today \((.+)\) and (.+)$/,
    (m) => `La fecha de pago va de hoy (${fmtDate(m[1])}) al ${fmtDate(m[2])}.`,
  ],
  [/^must be between (\S+) and (\S+)$/, (m) => `Entre el ${fmtDate(m[1])} y el ${fmtDate(m[2])}.`],
  [/^amount must be more than 0|^must be > 0$/, () => 'Tiene que ser mayor que 0.'],
  // a waiver over what is waivable (docs/domain.md, "Fees and charges")
  [/^at most (-?\d+(?:\.\d+)?)$/, (m) => `Como máximo ${fmtMoney(m[1])}.`],
  [
    /^amount \S+ is more than the (punitory|charges) posted and unpaid on installment (\d+) \((\S+) as of (\S+)\)/,
    (m) =>
      `El monto supera ${m[1] === 'punitory' ? 'los punitorios' : 'los gastos'} sin pagar de la cuota ${m[2]}: ${fmtMoney(m[3])} al ${fmtDate(m[4])}.`,
  ],
  [/^outcome must not be blank|^must not be blank$/, () => 'No puede quedar vacío.'],
  [
    /^the credit is (\w+): a promise is made on an active or written-off credit/,
    (m) => `El crédito está ${t(m[1] ?? '')}: solo se registran promesas en créditos activos o incobrables.`,
  ],
  [
    /^the promise is (\w+): only a pending promise/,
    (m) => `La promesa está ${t(m[1] ?? '')}: solo se anula una pendiente.`,
  ],
];

/** The API's message in the person's language: Spanish for the known ones, else as the API wrote it. */
export function tApi(message: string): string {
  if (current !== 'es') return message;
  for (const [re, say] of API_ES) {
    const m = re.exec(message);
    if (m) return say(m);
  }
  return message;
}

const pct = new Intl.NumberFormat('es-AR', { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const day = new Intl.DateTimeFormat('es-AR', { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'UTC' });
// dd/mm/aaaa hh:mm; in this browser's timezone until a business's is known (an operator has none)
const INSTANT = {
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
} as const;
let instant = new Intl.DateTimeFormat('es-AR', INSTANT);

/** The business's timezone for instants (set once signed in). */
export function setTimeZone(tz: string) {
  try {
    instant = new Intl.DateTimeFormat('es-AR', { ...INSTANT, timeZone: tz });
  } catch {}
}

export const fmtPct = (v: number | null | undefined) => (v == null ? '—' : pct.format(v));
/** dd/mm/aaaa for a YYYY-MM-DD */
export const fmtDate = (v: string | null | undefined) =>
  v ? day.format(new Date(`${v.slice(0, 10)}T00:00:00Z`)) : '—';
/** dd/mm/aaaa hh:mm for an instant, in the business's timezone */
export const fmtInstant = (v: string | null | undefined) => (v ? instant.format(new Date(v)) : '—');
