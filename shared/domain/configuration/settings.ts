/** The port for per-SaaS settings documents (infrastructure now; the configuration documents later). */
export interface SettingsRepository {
  get<T>(saasId: string, name: string): Promise<T | undefined>;
  put<T>(saasId: string, name: string, value: T): Promise<void>;
  /** Stores `value` unless a document exists; answers the one that is stored (theirs when two race). */
  putIfAbsent<T>(saasId: string, name: string, value: T): Promise<T>;
}
