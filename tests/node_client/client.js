// A Node.js client of the checkpoint service: writes a checkpoint, reads it back.
// Usage: node client.js PROTO TARGET TOKEN THREAD
// Values are sent as {type: "json"}; values come back as the server stores them
// ("msgpack" or "json"), decoded here with @msgpack/msgpack.
"use strict";
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");
const { decode } = require("@msgpack/msgpack");

const [protoPath, target, token, thread] = process.argv.slice(2);
const def = protoLoader.loadSync(protoPath, { keepCase: true, longs: String, defaults: true });
const v1 = grpc.loadPackageDefinition(def).actionckpt.v1;
const client = new v1.CheckpointService(target, grpc.credentials.createInsecure());
const meta = new grpc.Metadata();
meta.set("actionckpt-protocol", "1");
meta.set("authorization", `Bearer ${token}`);

const json = (v) => ({ type: "json", data: Buffer.from(JSON.stringify(v)) });
const value = (t) => (t.type === "json" ? JSON.parse(t.data.toString()) : decode(t.data));
const call = (name, req) =>
  new Promise((resolve, reject) =>
    client[name](req, meta, { deadline: Date.now() + 10000 }, (err, res) =>
      err ? reject(err) : resolve(res)));

async function main() {
  await call("Handshake", { protocol_version: 1, client: "node" });
  const id = "1ef00000-0000-6000-8000-000000000001";
  const put = await call("Put", {
    config: { thread_id: thread, checkpoint_ns: "" },
    checkpoint: {
      fields: json({ v: 4, id, ts: "2026-12-01T00:00:00+00:00",
        channel_versions: { greeting: "00000000000000000000000000000001.0" },
        versions_seen: {}, updated_channels: ["greeting"] }),
      channel_values: { greeting: json({ text: "hello from node", n: 42 }) },
    },
    metadata: json({ source: "input", step: -1, writer: "node" }),
    new_versions: json({ greeting: "00000000000000000000000000000001.0" }),
  });
  await call("PutWrites", {
    config: { thread_id: thread, checkpoint_ns: "", checkpoint_id: id },
    writes: [{ channel: "greeting", value: json("pending from node") }],
    task_id: "node-task", task_path: "",
  });
  const got = await call("GetTuple", { config: { thread_id: thread } });
  const t = got.tuple;
  const out = {
    put_checkpoint_id: put.config.checkpoint_id,
    checkpoint_id: t.config.checkpoint_id,
    fields: value(t.checkpoint.fields),
    greeting: value(t.checkpoint.channel_values.greeting),
    metadata: value(t.metadata),
    pending: t.pending_writes.map((w) => [w.task_id, w.channel, value(w.value)]),
  };
  // and a checkpoint the Python client wrote (thread given as THREAD-py)
  const py = await call("GetTuple", { config: { thread_id: `${thread}-py` } });
  out.python_values = py.tuple
    ? Object.fromEntries(Object.entries(py.tuple.checkpoint.channel_values)
        .map(([k, v]) => [k, value(v)]))
    : null;
  try {
    await call("GetTuple", { config: {} });
  } catch (err) {
    out.bad_request = [err.code, err.details];
  }
  process.stdout.write(JSON.stringify(out));
  client.close();
}

main().catch((err) => { console.error(err); process.exit(1); });
