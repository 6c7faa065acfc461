/** The port for per-SaaS settings documents (infrastructure now; the configuration documents later). */
export interface SettingsRepository {
  get<T>(saasId: string, name: string): Promise<T | undefined>;
  put<T>(saasId: string, name: string, value: T): Promise<void>;
  /** Stores `value` unless a document exists; answers the one that is stored (theirs when two race). */
  putIfAbsent<T>(saasId: string, name: string, value: T): Promise<T>;
  /** The SaaS that holds `domain` (a custom domain of a login screen), if any. */
  domainHolder(domain: string): Promise<string | undefined>;
  /**
   * Stores `value` and, in the same transaction, holds `domains.hold` for this SaaS and lets `domains.release`
   * go (when this SaaS holds it). False, and nothing stored, when another SaaS holds `domains.hold`.
   */
  putHoldingDomain<T>(saasId: string, name: string, value: T, domains: { hold?: string; release?: string }): Promise<boolean>;
}
