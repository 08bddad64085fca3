export type { Decimal } from './money.ts';
export {
  Dec,
  STORABLE_MAX,
  money,
  round2,
  toMoneyString,
  toMoneyNumber,
  moneyNumberOf,
  hasAtMostDecimals,
} from './money.ts';
export {
  isValidDate,
  addDays,
  daysBetween,
  addMonthsClamped,
  compareDates,
  todayIn,
  isValidTimeZone,
  daysInMonth,
  lastMonthEnd,
  dayNumber,
  fromDay,
  systemClock,
} from './dates.ts';
export type { Clock } from './dates.ts';
export { instantBound, isValidInstant, parseInstant } from './instants.ts';
export type { InstantBound } from './instants.ts';
export { UUID_PATTERN, isUuid } from './uuid.ts';
export {
  AppError,
  DomainError,
  ERROR_CODES,
  ERROR_STATUS,
  conflict,
  gone,
  invalid,
  notFound,
  unprocessable,
} from './errors.ts';
export type { ErrorCode, ErrorDetail } from './errors.ts';
export { buildSchedule, firstDueDate, scheduleFor } from './schedule.ts';
export { creditCost } from './cost.ts';
export type { CostInput, CostInstallment, CreditCost } from './cost.ts';
export type {
  Amortization,
  CutType,
  PlanScheduleTerms,
  ScheduleInput,
  ScheduledInstallment,
  Schedule,
} from './schedule.ts';
export { delinquency } from './delinquency.ts';
export type { InstallmentStatus, DelinquencyInput, Delinquency } from './delinquency.ts';
export { atStorableMax, cumulativePunitory, punitoryToPost, punitoryCap } from './punitory.ts';
export type { PunitoryMode, PunitoryTerms, InstallmentPayment, PunitoryInput } from './punitory.ts';
export {
  allocatePayment,
  outstanding,
  installmentStatus,
  installmentDue,
  splitAmountPaid,
  AMOUNT_PARTS,
} from './allocation.ts';
export type { InstallmentBalance, PaymentSlice, Allocation, AmountPart } from './allocation.ts';
export { cuitCheckDigit, isValidCuit, parseCuit, withCheckDigit } from './cuit.ts';
export { datesReaching, isBusinessDay, isWeekend, nextBusinessDay, toleranceDays } from './businessDays.ts';
export {
  originationOf,
  financedPrincipal,
  disbursedOf,
  amountDisbursing,
  feesProblem,
  periodFeesOf,
  NO_PERIOD_FEES,
  collectionChargeOf,
  chargeDay,
  collectionChargeOwed,
} from './fees.ts';
export type { PlanFee, Origination, FeeType, PeriodFees, CollectionCharge } from './fees.ts';
export { numberInWords, pesosInWords, MAX_IN_WORDS } from './words.ts';
