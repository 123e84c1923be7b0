/**
 * The downloads of one request share its fate: every file URL the request names is fetched under
 * one signal that aborts when any of them fails (the request has its 400: the rest would be
 * fetched for nothing) and when the client goes away.
 */
import { HttpError, type Req } from './http.js';

export interface RequestDownloads {
  signal: AbortSignal;
  /** Stop every download of the request (it failed). */
  abort(reason?: unknown): void;
  /** The request is answered: stop watching its connection. */
  done(): void;
}

export function requestDownloads(req: Req): RequestDownloads {
  const ac = new AbortController();
  const socket = req.raw.socket as typeof req.raw.socket | undefined;
  const onClose = (): void => ac.abort(new HttpError(400, 'the client closed the connection before the files were downloaded'));
  socket?.once('close', onClose);
  return {
    signal: ac.signal,
    abort: (reason) => ac.abort(reason ?? new HttpError(400, 'the request failed')),
    done: () => socket?.off('close', onClose),
  };
}

/** Runs `work` with the request's downloads; any failure aborts the downloads still running. */
export async function withDownloads<T>(req: Req, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const d = requestDownloads(req);
  try {
    return await work(d.signal);
  } catch (e) {
    d.abort(e);
    throw e;
  } finally {
    d.done();
  }
}
