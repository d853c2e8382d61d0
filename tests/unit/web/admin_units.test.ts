// Unit tests of the ETL and Access pages' pure helpers (console/web/src/
// admin_api.ts), run by node's test runner after esbuild bundles them
// (run.mjs --entry admin_units.test.ts): the new-user rules agree with the
// server's, a server refusal lands on its field, extension pairs, and the ETL
// decoders read the proxy's shapes and never throw on others.
import test from "node:test";
import assert from "node:assert/strict";
import * as admin from "../../../console/web/src/admin_api";

test("a new user: the server's name and password rules, checked on their fields", () => {
  assert.deepEqual([...admin.newUserErrors("alice", "alice-password-1", "alice-password-1")], []);
  assert.deepEqual([...admin.newUserErrors("", "12345678", "12345678")], [["name", "a user name is 1 to 64 bytes"]]);
  assert.deepEqual([...admin.newUserErrors("a".repeat(65), "12345678", "12345678")], [["name", "a user name is 1 to 64 bytes"]]);
  assert.deepEqual([...admin.newUserErrors("a".repeat(64), "12345678", "12345678")], []);
  assert.equal(admin.newUserErrors("al ice", "12345678", "12345678").get("name"), "a user name holds only letters, digits, '.', '_' and '-'");
  assert.equal(admin.newUserErrors("al/ice", "12345678", "12345678").get("name"), "a user name holds only letters, digits, '.', '_' and '-'");
  assert.deepEqual([...admin.newUserErrors("A.b_c-9", "12345678", "12345678")], []);
  // Bytes, not characters, as the server counts them: "ééé" is 6 bytes, "éééé" 8.
  assert.equal(admin.newUserErrors("bob", "ééé", "ééé").get("password"), "a password needs at least 8 bytes");
  assert.equal(admin.newUserErrors("bob", "éééé", "éééé").size, 0);
  assert.equal(admin.newUserErrors("bob", "1234567", "1234567").get("password"), "a password needs at least 8 bytes");
  assert.equal(admin.newUserErrors("bob", "x".repeat(1025), "x".repeat(1025)).get("password"), "a password is at most 1024 bytes");
  assert.equal(admin.newUserErrors("bob", "x".repeat(1024), "x".repeat(1024)).size, 0);
  assert.deepEqual([...admin.newUserErrors("bob", "12345678", "12345679")], [["repeated", "the two passwords differ"]]);
});

test("a refusal of POST /v1/users on the field it is about", () => {
  assert.equal(admin.userErrorField("a password needs at least 8 bytes"), "password");
  assert.equal(admin.userErrorField('user "admin" exists'), "name");
  assert.equal(admin.userErrorField("/name: a user name holds only letters, digits, '.', '_' and '-'"), "name");
  assert.equal(admin.userErrorField("only an admin may do this"), "");
});

test("extension pairs of an offline ETL job", () => {
  assert.deepEqual(admin.parseExt(""), {});
  assert.deepEqual(admin.parseExt("png:jpg"), { png: "jpg" });
  assert.deepEqual(admin.parseExt(" png : jpg , tar:tgz,"), { png: "jpg", tar: "tgz" });
  assert.equal(admin.parseExt("png"), null);
  assert.equal(admin.parseExt("png:"), null);
  assert.equal(admin.parseExt("a:b:c"), null);
});

test("ETL decoders: the proxy's shapes (targets by id), and never a throw", () => {
  const info = admin.etlDetail({
    name: "md5", communication: "io://", stage: "running", objects_in: 6, bytes_in: 20480, bytes_out: 192, errors: 1,
    spec: { name: "md5", command: ["md5"], obj_timeout: "45s" },
    targets: {
      t1: { name: "md5", target: "t1", stage: "running", pid: 0, port: 0, objects_in: 4, bytes_in: 1, bytes_out: 2, errors: 1, restarts: 0, last_errors: ["a: exit 1"] },
      t2: { name: "md5", target: "t2", stage: "error", error: "cannot start", objects_in: 2 },
    },
    unreachable: { t3: "timeout" },
  });
  assert.equal(info.name, "md5");
  assert.equal(info.objects_in, 6);
  assert.deepEqual(info.spec, { name: "md5", command: ["md5"], obj_timeout: "45s" });
  assert.deepEqual(info.targets.map((t) => [t.target, t.stage, t.objects_in, t.error, t.last_errors]),
    [["t1", "running", 4, "", ["a: exit 1"]], ["t2", "error", 2, "cannot start", []]]);
  assert.deepEqual(info.unreachable, [["t3", "timeout"]]);
  // GET /v1/etl lists without spec and targets.
  const listed = admin.etlDetail({ name: "x", communication: "hpush://", stage: "stopped" });
  assert.deepEqual([listed.spec, listed.targets, listed.unreachable], [null, [], []]);
  for (const bad of [null, undefined, 3, "x", [], { targets: "no", spec: 5 }, { targets: [null, 4], unreachable: [1] }]) {
    assert.doesNotThrow(() => admin.etlDetail(bad));
    assert.doesNotThrow(() => admin.etlInfo(bad));
  }
});
