// Runs @firestore-emulator/server on 127.0.0.1 (its own start() binds 0.0.0.0) and
// prints `READY <port>`. Test fixtures that the host's CLI cannot write (updates,
// malformed documents) arrive as JSON lines on stdin and go through the emulator's own
// Commit path, so listeners see them exactly as they see a client's write:
//   {"set": {"id": "abc", "fields": {"word": "HI", "name": "Rex"}}}   (a non-string value stays as given)
//   {"delete": "abc"}
// and {"reads": true} answers `OK <n>`: the documents sent by RunQuery and BatchGet so
// far, as Firestore bills reads.
// Usage: node firestore-emulator.mjs [port]   (0 or none: any free port)
import { createInterface } from 'node:readline';
import { FirestoreServer } from '@firestore-emulator/server';
import { ServerCredentials } from '@grpc/grpc-js';
import { Write } from '@firestore-emulator/proto/dist/google/firestore/v1/write.js';

const PROJECT = process.env.EMULATOR_PROJECT ?? 'test';
const COLLECTION = process.env.EMULATOR_COLLECTION ?? 'words';
const documentName = (id) => `projects/${PROJECT}/databases/(default)/documents/${COLLECTION}/${id}`;

const emulator = new FirestoreServer();
const grpcServer = emulator['server'];
const port = await new Promise((resolve, reject) => {
  grpcServer.bindAsync(`127.0.0.1:${Number(process.argv[2] ?? 0)}`, ServerCredentials.createInsecure(), (error, bound) =>
    error ? reject(error) : resolve(bound),
  );
});

let documentsRead = 0;
for (const [method, sent] of [
  ['RunQuery', (response) => response.has_document],
  ['BatchGetDocuments', (response) => response.has_found],
]) {
  const handler = grpcServer.handlers.get(`/google.firestore.v1.Firestore/${method}`);
  const serve = handler.func;
  handler.func = (call, ...rest) => {
    const write = call.write.bind(call);
    call.write = (response, ...more) => {
      if (sent(response)) documentsRead += 1;
      return write(response, ...more);
    };
    return serve(call, ...rest);
  };
}
console.log(`READY ${port}`);

const value = (v) => (typeof v === 'string' ? { string_value: v } : typeof v === 'number' ? { integer_value: v } : { null_value: 0 });

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  try {
    const command = JSON.parse(line);
    if (command.reads) {
      console.log(`OK ${documentsRead}`);
      continue;
    }
    const write = command.delete
      ? Write.fromObject({ delete: documentName(command.delete) })
      : Write.fromObject({
          update: {
            name: documentName(command.set.id),
            fields: Object.fromEntries(Object.entries(command.set.fields).map(([k, v]) => [k, value(v)])),
          },
        });
    emulator.state.writeV1Document(new Date(), write);
    console.log('OK');
  } catch (error) {
    console.log(`ERROR ${error.message}`);
  }
}
