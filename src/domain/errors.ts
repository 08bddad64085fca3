/** A rule of the domain refused its input; `code` is stable, the caller maps it to an HTTP answer (422). */
export class DomainError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
  }
}
