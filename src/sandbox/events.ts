/**
 * In-process events of the sandbox. Nothing subscribes yet except `sync` run requests; the
 * webhook dispatcher (workflows and webhooks come later) will subscribe here and use the
 * service's event names, so routes already emit them.
 */
export type SandboxEvent =
  | { type: 'processor.created' | 'processor.updated'; processorId: string }
  | { type: 'processor.version.published'; processorId: string; versionId: string }
  | { type: 'processor_run.processed' | 'processor_run.failed'; runId: string }
  | { type: 'batch_processor_run.processed' | 'batch_processor_run.failed'; batchProcessorRunId: string };

export type Listener = (e: SandboxEvent) => void;

export class EventBus {
  private readonly listeners = new Set<Listener>();

  on(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit(e: SandboxEvent): void {
    for (const fn of this.listeners) {
      try {
        fn(e);
      } catch {
        // A listener's failure must not break the request or the run that emitted the event.
      }
    }
  }
}
