/**
 * In-process events of the sandbox, named as the service names its webhook events. `sync` run
 * requests and the webhook dispatcher (src/sandbox/webhooks) subscribe here.
 */
export type SandboxEvent =
  | { type: 'processor.created' | 'processor.updated'; processorId: string }
  | { type: 'processor.version.published'; processorId: string; versionId: string }
  | { type: 'processor_run.processed' | 'processor_run.failed'; runId: string }
  | { type: 'workflow_run.completed' | 'workflow_run.failed' | 'workflow_run.cancelled'; workflowRunId: string }
  /** A workflow was created, or one of its versions published ("deployed" in 2026-02-09's words). */
  | { type: 'workflow.created' | 'workflow.deployed'; workflowId: string }
  /** A step of a workflow run (its processor run `runId`) ended PROCESSED. */
  | { type: 'workflow_run.step_run.processed'; workflowRunId: string; runId: string }
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
