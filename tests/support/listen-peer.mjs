// A scripted Firestore: a gRPC server speaking google.firestore.v1.Firestore from the
// same generated protos the emulator uses, answering Listen with what each test writes,
// following Firestore's documented semantics (resume tokens, existence filters, RESET,
// errors) that the npm emulator never produces. RunQuery (the host's probe of a silent
// listener) answers with one document unless told to hang or to find none; a transaction
// begins, and its Commit is never answered (a Firestore gone silent as a command writes).
// The host is pointed at it as at the emulator, with FIRESTORE_EMULATOR_HOST.
import { Server, ServerCredentials, status } from '@grpc/grpc-js';
import {
  BeginTransactionResponse,
  ListenRequest,
  ListenResponse,
  RunQueryResponse,
  TargetChangeTargetChangeType as Change,
  UnimplementedFirestoreService,
} from '@firestore-emulator/proto/dist/google/firestore/v1/firestore.mjs';

const PROJECT = 'test';
const COLLECTION = 'words';
const documentName = (id) => `projects/${PROJECT}/databases/(default)/documents/${COLLECTION}/${id}`;
const timestamp = (ms) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });

/** One Listen stream as the test drives it. */
class ListenCall {
  constructor(call, request) {
    this.call = call;
    this.request = request;
    this.target = request.add_target?.target_id ?? 1;
    this.ended = new Promise((resolve) => call.once('close', resolve).once('cancelled', resolve).once('finish', resolve));
  }

  /** The resume token the host sent with its target, as text ('' when none). */
  get resumeToken() {
    return Buffer.from(this.request.add_target?.resume_token ?? []).toString();
  }

  write(object) {
    this.call.write(ListenResponse.fromObject(object));
  }

  targetChange(type, { token, ids = [this.target] } = {}) {
    this.write({
      target_change: {
        target_change_type: type,
        target_ids: ids,
        ...(token ? { resume_token: Buffer.from(token) } : {}),
        ...(type === Change.CURRENT || type === Change.NO_CHANGE ? { read_time: timestamp(Date.now()) } : {}),
      },
    });
  }

  add(token) {
    this.targetChange(Change.ADD, { token });
  }

  /** A document, created at `created` ms (its place in the list, newest first). */
  doc(id, word, name, created = Date.now()) {
    this.write({
      document_change: {
        document: {
          name: documentName(id),
          fields: { word: { string_value: word }, name: { string_value: name } },
          create_time: timestamp(created),
          update_time: timestamp(Date.now()),
        },
        target_ids: [this.target],
      },
    });
  }

  remove(id) {
    this.write({ document_delete: { document: documentName(id), removed_target_ids: [this.target], read_time: timestamp(Date.now()) } });
  }

  /** CURRENT with a resume token, then a global NO_CHANGE with the same token, as Firestore sends a consistent point. */
  current(token) {
    this.targetChange(Change.CURRENT, { token });
    this.targetChange(Change.NO_CHANGE, { token, ids: [] });
  }

  reset() {
    this.targetChange(Change.RESET);
  }

  filter(count) {
    this.write({ filter: { target_id: this.target, count } });
  }

  /** Ends the stream with a gRPC error. */
  fail(code, details) {
    this.call.emit('error', { code, details });
  }
}

export async function startListenPeer() {
  const waiting = [];
  const calls = [];
  const peer = {
    calls,
    queries: 0,
    /** When set, RunQuery never answers (a Firestore that has gone silent). */
    hangQueries: false,
    /** When set, RunQuery answers with no document (an empty collection). */
    emptyQueries: false,
    commits: 0,
    /** When set, every new Listen call fails at once with this status. */
    refuseWith: null,
    /** Resolves to the next Listen call the host opens (or one already waiting). */
    nextCall(ms = 15_000) {
      const ready = calls.find((c) => !c.taken);
      if (ready) {
        ready.taken = true;
        return Promise.resolve(ready);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the host opened no Listen stream within ${ms} ms`)), ms);
        waiting.push((call) => {
          clearTimeout(timer);
          call.taken = true;
          resolve(call);
        });
      });
    },
  };

  class Scripted extends UnimplementedFirestoreService {
    Listen(call) {
      call.on('error', () => {});
      // A client may add and remove targets on one stream: each added target is a
      // ListenCall of its own, writing to the same stream.
      call.on('data', (request) => {
        if (process.env.LISTEN_PEER_DEBUG) console.error('peer got', JSON.stringify(request.toObject()));
        if (!(request instanceof ListenRequest)) return;
        if (request.has_remove_target) {
          // Firestore acknowledges a removed target with a REMOVE change.
          peer.removed = (peer.removed ?? 0) + 1;
          call.write(
            ListenResponse.fromObject({
              target_change: { target_change_type: Change.REMOVE, target_ids: [request.remove_target] },
            }),
          );
          return;
        }
        if (!request.has_add_target) return;
        if (peer.refuseWith) {
          call.emit('error', { code: peer.refuseWith.code, details: peer.refuseWith.details });
          peer.refused = (peer.refused ?? 0) + 1;
          return;
        }
        const listen = new ListenCall(call, request);
        calls.push(listen);
        const waiter = waiting.shift();
        if (waiter) waiter(listen);
      });
    }

    RunQuery(call) {
      peer.queries++;
      if (peer.hangQueries) return;
      if (peer.refuseWith) {
        call.emit('error', { code: peer.refuseWith.code, details: peer.refuseWith.details });
        return;
      }
      if (peer.emptyQueries) {
        call.write(RunQueryResponse.fromObject({ read_time: timestamp(Date.now()) }));
        call.end();
        return;
      }
      call.write(
        RunQueryResponse.fromObject({
          document: {
            name: documentName('probe'),
            fields: { word: { string_value: 'PROBE' }, name: { string_value: 'Probe' } },
            create_time: timestamp(Date.now()),
            update_time: timestamp(Date.now()),
          },
          read_time: timestamp(Date.now()),
        }),
      );
      call.end();
    }

    BeginTransaction(_call, callback) {
      callback(null, BeginTransactionResponse.fromObject({ transaction: Buffer.from(`t${peer.commits}`) }));
    }

    Commit() {
      peer.commits++;
    }
  }

  const server = new Server();
  server.addService(UnimplementedFirestoreService.definition, new Scripted());
  const port = await new Promise((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  peer.host = `127.0.0.1:${port}`;
  peer.status = status;
  peer.stop = () => new Promise((resolve) => server.tryShutdown(() => resolve())).then(() => server.forceShutdown());
  return peer;
}
