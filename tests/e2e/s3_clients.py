#!/usr/bin/env python3
"""Real S3 clients against a running Tessera proxy: awscli, s3cmd, boto3.

Usage: s3_clients.py SECTION --endpoint http://127.0.0.1:PORT/s3 [--root-endpoint http://127.0.0.1:S3PORT]
                     --workdir DIR [--ca CA.pem]
A cluster over TLS: https:// endpoints and --ca, the CA every client must trust (awscli and boto3
through AWS_CA_BUNDLE, urllib through SSL_CERT_FILE, s3cmd through ca_certs_file).
SECTION: awscli | s3cmd | boto3 | webdataset | signed | authorized | storedkeys | storedkeys-deleted
(--keys ADMIN_AK:SK,ALICE_AK:SK) | .... Each section makes its own buckets, checks exact bytes
and answers, and exits non-zero with a message at the first difference. Dummy credentials come
from the environment it sets for the clients (auth off: any well-formed signature is accepted).
"""
import argparse
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile

ENV = dict(os.environ, AWS_ACCESS_KEY_ID="AKIDTESSERATEST", AWS_SECRET_ACCESS_KEY="tessera-test-secret",
           AWS_DEFAULT_REGION="us-east-1", AWS_EC2_METADATA_DISABLED="true", AWS_PAGER="")


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def run(args, expect_ok=True, stdin=None):
    p = subprocess.run(args, env=ENV, capture_output=True, input=stdin)
    if expect_ok and p.returncode != 0:
        fail("%s exited %d:\n%s\n%s" % (" ".join(args), p.returncode, p.stdout.decode(errors="replace"),
                                        p.stderr.decode(errors="replace")))
    return p


def data(n, seed):
    out = bytearray()
    h = hashlib.sha256(seed.encode()).digest()
    while len(out) < n:
        h = hashlib.sha256(h).digest()
        out += h
    return bytes(out[:n])


def write(path, content):
    with open(path, "wb") as f:
        f.write(content)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def section_awscli(a):
    aws = ["aws", "--endpoint-url", a.endpoint]
    w = a.workdir
    run(aws + ["s3", "mb", "s3://awscli"])
    small = data(1000, "small")
    big = data(100 * 1024 * 1024 + 123, "big")  # multipart (8 MiB parts)
    write(w + "/small.bin", small)
    write(w + "/big.bin", big)
    run(aws + ["s3", "cp", w + "/small.bin", "s3://awscli/dir/small.bin"])
    run(aws + ["s3", "cp", w + "/big.bin", "s3://awscli/big.bin"])
    run(aws + ["s3", "cp", "s3://awscli/dir/small.bin", w + "/small.back"])
    run(aws + ["s3", "cp", "s3://awscli/big.bin", w + "/big.back"])
    check(read(w + "/small.back") == small, "small object bytes differ after aws s3 cp round trip")
    check(read(w + "/big.back") == big, "100 MiB multipart object bytes differ after aws s3 cp round trip")
    head = json.loads(run(aws + ["s3api", "head-object", "--bucket", "awscli", "--key", "big.bin"]).stdout)
    check(head["ContentLength"] == len(big), "head-object length %s" % head["ContentLength"])
    check(head["ETag"].endswith("-13\""), "multipart ETag %s is not of 13 parts" % head["ETag"])
    head = json.loads(run(aws + ["s3api", "head-object", "--bucket", "awscli", "--key", "dir/small.bin"]).stdout)
    check(head["ETag"] == '"%s"' % hashlib.md5(small).hexdigest(), "single-part ETag is not the MD5")
    # stdout/stdin streaming (WebDataset's pipe:aws s3 cp s3://... -)
    p = run(aws + ["s3", "cp", "s3://awscli/dir/small.bin", "-"])
    check(p.stdout == small, "aws s3 cp to stdout differs")
    run(aws + ["s3", "cp", "-", "s3://awscli/dir/stdin.bin"], stdin=small)
    # sync a tree up and down
    os.makedirs(w + "/tree/a/b", exist_ok=True)
    files = {"tree/one.txt": b"one\n", "tree/a/two.txt": b"two\n", "tree/a/b/three.txt": b"three\n"}
    for k, v in files.items():
        write(w + "/" + k, v)
    run(aws + ["s3", "sync", w + "/tree", "s3://awscli/tree"])
    run(aws + ["s3", "sync", "s3://awscli/tree", w + "/tree-back"])
    for k, v in files.items():
        check(read(w + "/tree-back/" + k[len("tree/"):]) == v, "sync round trip differs for " + k)
    # a second sync has nothing to copy
    p = run(aws + ["s3", "sync", w + "/tree", "s3://awscli/tree"])
    check(p.stdout.strip() == b"", "second sync copied again: %r" % p.stdout)
    ls = run(aws + ["s3", "ls", "s3://awscli/tree/"]).stdout.decode()
    check("PRE a/" in ls and "one.txt" in ls, "aws s3 ls of tree/: %r" % ls)
    ls = run(aws + ["s3", "ls", "--recursive", "s3://awscli/"]).stdout.decode()
    for k in ["big.bin", "dir/small.bin", "dir/stdin.bin", "tree/a/b/three.txt"]:
        check(k in ls, "recursive ls misses %s: %r" % (k, ls))
    check(".s3-multipart" not in ls, "multipart leftovers are listed")
    # list-objects-v2 with a delimiter, and paging by 2
    lo = json.loads(run(aws + ["s3api", "list-objects-v2", "--bucket", "awscli", "--delimiter", "/"]).stdout)
    check([c["Prefix"] for c in lo["CommonPrefixes"]] == ["dir/", "tree/"], "CommonPrefixes %r" % lo)
    check([o["Key"] for o in lo["Contents"]] == ["big.bin"], "Contents %r" % lo["Contents"])
    page = json.loads(run(aws + ["s3api", "list-objects-v2", "--bucket", "awscli", "--max-keys", "2",
                                 "--no-paginate"]).stdout)
    check(page["IsTruncated"] and page["KeyCount"] == 2, "first page %r" % page)
    keys = [o["Key"] for o in page["Contents"]]
    while page.get("IsTruncated"):
        page = json.loads(run(aws + ["s3api", "list-objects-v2", "--bucket", "awscli", "--max-keys", "2",
                                     "--no-paginate", "--continuation-token", page["NextContinuationToken"]]).stdout)
        keys += [o["Key"] for o in page.get("Contents", [])]
    check(keys == ["big.bin", "dir/small.bin", "dir/stdin.bin", "tree/a/b/three.txt", "tree/a/two.txt",
                   "tree/one.txt"], "paged keys %r" % keys)
    run(aws + ["s3", "rm", "--recursive", "s3://awscli/"])
    ls = run(aws + ["s3", "ls", "--recursive", "s3://awscli/"], expect_ok=False).stdout
    check(ls.strip() == b"", "objects left after rm --recursive: %r" % ls)
    run(aws + ["s3", "rb", "s3://awscli"])
    p = run(aws + ["s3", "ls", "s3://awscli"], expect_ok=False)
    check(p.returncode != 0 and b"NoSuchBucket" in p.stderr, "ls of a removed bucket: %r" % p.stderr)


def section_s3cmd(a):
    host = a.root_endpoint.split("://", 1)[1]
    cfg = a.workdir + "/s3cmd.cfg"
    tls = a.root_endpoint.startswith("https://")
    with open(cfg, "w") as f:
        f.write("[default]\naccess_key = AKIDTESSERATEST\nsecret_key = tessera-test-secret\n"
                "host_base = %s\nhost_bucket = %s\nuse_https = %s\nsignature_v2 = False\n"
                "bucket_location = us-east-1\n" % (host, host, "True" if tls else "False"))
        if tls:
            f.write("ca_certs_file = %s\ncheck_ssl_certificate = True\ncheck_ssl_hostname = True\n" % a.ca)
    s3cmd = ["s3cmd", "-c", cfg]
    content = data(300000, "s3cmd")
    write(a.workdir + "/s3cmd.bin", content)
    run(s3cmd + ["mb", "s3://s3cmd"])
    run(s3cmd + ["put", a.workdir + "/s3cmd.bin", "s3://s3cmd/x/s3cmd.bin"])
    run(s3cmd + ["get", "--force", "s3://s3cmd/x/s3cmd.bin", a.workdir + "/s3cmd.back"])
    check(read(a.workdir + "/s3cmd.back") == content, "s3cmd get bytes differ")
    ls = run(s3cmd + ["ls", "s3://s3cmd/x/"]).stdout.decode()
    check("s3://s3cmd/x/s3cmd.bin" in ls and "300000" in ls, "s3cmd ls: %r" % ls)
    run(s3cmd + ["del", "s3://s3cmd/x/s3cmd.bin"])
    ls = run(s3cmd + ["ls", "s3://s3cmd/x/"]).stdout.decode()
    check("s3cmd.bin" not in ls, "s3cmd del left the object: %r" % ls)
    run(s3cmd + ["rb", "s3://s3cmd"])


def section_boto3(a):
    import boto3
    from botocore.client import Config
    from botocore.exceptions import ClientError
    s3 = boto3.client("s3", endpoint_url=a.endpoint, region_name="us-east-1",
                      aws_access_key_id="AKIDTESSERATEST", aws_secret_access_key="tessera-test-secret",
                      # No retries, a short read timeout: a request the
                      # server leaves unanswered fails here rather than
                      # passing after a retry (an empty PUT with Expect:
                      # 100-continue answered without the 100 once made
                      # botocore wait 60 s on the next PUT).
                      config=Config(s3={"addressing_style": "path"}, signature_version="s3v4", read_timeout=20,
                                    retries={"max_attempts": 1}))

    def code(fn, **kw):
        try:
            fn(**kw)
        except ClientError as e:
            return e.response["Error"]["Code"], e.response["ResponseMetadata"]["HTTPStatusCode"]
        return None, 200

    s3.create_bucket(Bucket="boto")
    check(code(s3.create_bucket, Bucket="boto")[0] == "BucketAlreadyOwnedByYou", "second create")
    check(code(s3.create_bucket, Bucket="Bad_Name")[0] == "InvalidBucketName", "bad bucket name")
    names = [b["Name"] for b in s3.list_buckets()["Buckets"]]
    check("boto" in names, "list_buckets %r" % names)
    s3.head_bucket(Bucket="boto")
    check(s3.get_bucket_location(Bucket="boto").get("LocationConstraint") in (None, ""), "location")
    body = data(5000, "boto")
    r = s3.put_object(Bucket="boto", Key="a/b.bin", Body=body, ContentType="application/x-test",
                      Metadata={"label": "cat, dog", "n": "1"})
    check(r["ETag"] == '"%s"' % hashlib.md5(body).hexdigest(), "put ETag %s" % r["ETag"])
    g = s3.get_object(Bucket="boto", Key="a/b.bin")
    check(g["Body"].read() == body, "get bytes")
    check(g["ContentType"] == "application/x-test", "content type %s" % g["ContentType"])
    check(g["Metadata"] == {"label": "cat, dog", "n": "1"}, "metadata %r" % g["Metadata"])
    check(g["ETag"] == r["ETag"], "get ETag")
    rg = s3.get_object(Bucket="boto", Key="a/b.bin", Range="bytes=10-19")
    check(rg["Body"].read() == body[10:20] and rg["ContentRange"] == "bytes 10-19/5000", "range")
    check(code(s3.get_object, Bucket="boto", Key="a/b.bin", Range="bytes=9000-9100") == ("InvalidRange", 416),
          "bad range")
    check(code(s3.get_object, Bucket="boto", Key="a/b.bin", IfNoneMatch=r["ETag"]) == ("304", 304),
          "If-None-Match")
    check(code(s3.get_object, Bucket="boto", Key="a/b.bin", IfMatch='"0000"') == ("PreconditionFailed", 412),
          "If-Match")
    check(code(s3.get_object, Bucket="boto", Key="a/b.bin", IfModifiedSince=g["LastModified"])[0] == "304",
          "If-Modified-Since")
    s3.get_object(Bucket="boto", Key="a/b.bin", IfMatch=r["ETag"])
    h = s3.head_object(Bucket="boto", Key="a/b.bin")
    check(h["ContentLength"] == 5000, "head length")
    check(code(s3.get_object, Bucket="boto", Key="missing") == ("NoSuchKey", 404), "missing key")
    check(code(s3.head_object, Bucket="boto", Key="missing")[1] == 404, "head missing key")
    check(code(s3.get_object, Bucket="nobucket", Key="k") == ("NoSuchBucket", 404), "missing bucket")
    check(code(s3.head_bucket, Bucket="nobucket")[1] == 404, "head missing bucket")
    # copy
    c = s3.copy_object(Bucket="boto", Key="copy.bin", CopySource={"Bucket": "boto", "Key": "a/b.bin"})
    check(c["CopyObjectResult"]["ETag"] == r["ETag"], "copy ETag")
    check(s3.get_object(Bucket="boto", Key="copy.bin")["Body"].read() == body, "copy bytes")
    check(s3.head_object(Bucket="boto", Key="copy.bin")["Metadata"] == {"label": "cat, dog", "n": "1"},
          "copy keeps metadata")
    # listing v1 and v2
    for i in range(5):
        s3.put_object(Bucket="boto", Key="p/%d" % i, Body=b"x" * i)
    v2 = s3.list_objects_v2(Bucket="boto", Prefix="p/", MaxKeys=2)
    check([o["Key"] for o in v2["Contents"]] == ["p/0", "p/1"] and v2["IsTruncated"], "v2 page 1")
    v2 = s3.list_objects_v2(Bucket="boto", Prefix="p/", MaxKeys=2, ContinuationToken=v2["NextContinuationToken"])
    check([o["Key"] for o in v2["Contents"]] == ["p/2", "p/3"], "v2 page 2")
    v2 = s3.list_objects_v2(Bucket="boto", Prefix="p/", StartAfter="p/3")
    check([o["Key"] for o in v2["Contents"]] == ["p/4"] and not v2["IsTruncated"], "start-after")
    v1 = s3.list_objects(Bucket="boto", Delimiter="/")
    check([p["Prefix"] for p in v1["CommonPrefixes"]] == ["a/", "p/"], "v1 common prefixes %r" % v1)
    check([o["Key"] for o in v1["Contents"]] == ["copy.bin"], "v1 contents")
    v1 = s3.list_objects(Bucket="boto", Prefix="p/", Marker="p/1", MaxKeys=2)
    check([o["Key"] for o in v1["Contents"]] == ["p/2", "p/3"] and v1["IsTruncated"], "v1 marker")
    paginator = s3.get_paginator("list_objects_v2")
    allkeys = [o["Key"] for pg in paginator.paginate(Bucket="boto", PaginationConfig={"PageSize": 3})
               for o in pg.get("Contents", [])]
    check(allkeys == ["a/b.bin", "copy.bin", "p/0", "p/1", "p/2", "p/3", "p/4"], "paginator %r" % allkeys)
    # presigned GET, with plain urllib (no SDK on the reading side)
    import urllib.request
    url = s3.generate_presigned_url("get_object", Params={"Bucket": "boto", "Key": "a/b.bin"}, ExpiresIn=300)
    with urllib.request.urlopen(url) as resp:
        check(resp.read() == body, "presigned GET bytes")
    # multipart: 3 parts (5 MiB, 5 MiB, 1 KiB), ListParts, ListMultipartUploads, complete
    parts_data = [data(5 * 1024 * 1024, "p1"), data(5 * 1024 * 1024, "p2"), data(1024, "p3")]
    up = s3.create_multipart_upload(Bucket="boto", Key="mp.bin", ContentType="application/x-mp")
    uid = up["UploadId"]
    etags = []
    for i, pd in enumerate(parts_data, start=1):
        etags.append(s3.upload_part(Bucket="boto", Key="mp.bin", UploadId=uid, PartNumber=i, Body=pd)["ETag"])
    lp = s3.list_parts(Bucket="boto", Key="mp.bin", UploadId=uid)
    check([p["PartNumber"] for p in lp["Parts"]] == [1, 2, 3], "list_parts %r" % lp)
    check([p["ETag"] for p in lp["Parts"]] == etags, "list_parts ETags")
    lu = s3.list_multipart_uploads(Bucket="boto")
    check([u["UploadId"] for u in lu.get("Uploads", [])] == [uid], "list_multipart_uploads %r" % lu)
    bad = code(s3.complete_multipart_upload, Bucket="boto", Key="mp.bin", UploadId=uid,
               MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": etags[1]}]})
    check(bad[0] == "InvalidPart", "complete with a wrong ETag: %r" % (bad,))
    done = s3.complete_multipart_upload(Bucket="boto", Key="mp.bin", UploadId=uid, MultipartUpload={
        "Parts": [{"PartNumber": i + 1, "ETag": e} for i, e in enumerate(etags)]})
    want = hashlib.md5(b"".join(bytes.fromhex(e.strip('"')) for e in etags)).hexdigest() + "-3"
    check(done["ETag"] == '"%s"' % want, "multipart ETag %s, want %s" % (done["ETag"], want))
    g = s3.get_object(Bucket="boto", Key="mp.bin")
    check(g["Body"].read() == b"".join(parts_data), "multipart bytes")
    check(g["ContentType"] == "application/x-mp" and g["ETag"] == done["ETag"], "multipart metadata")
    check(s3.list_multipart_uploads(Bucket="boto").get("Uploads", []) == [], "upload left after complete")
    # upload_part_copy: a part from a range of an existing object
    up = s3.create_multipart_upload(Bucket="boto", Key="copied.bin")
    c1 = s3.upload_part_copy(Bucket="boto", Key="copied.bin", UploadId=up["UploadId"], PartNumber=1,
                             CopySource={"Bucket": "boto", "Key": "mp.bin"},
                             CopySourceRange="bytes=0-%d" % (5 * 1024 * 1024 - 1))["CopyPartResult"]["ETag"]
    c2 = s3.upload_part_copy(Bucket="boto", Key="copied.bin", UploadId=up["UploadId"], PartNumber=2,
                             CopySource={"Bucket": "boto", "Key": "a/b.bin"})["CopyPartResult"]["ETag"]
    check(c1 == etags[0], "upload_part_copy ETag %s, want %s" % (c1, etags[0]))
    s3.complete_multipart_upload(Bucket="boto", Key="copied.bin", UploadId=up["UploadId"], MultipartUpload={
        "Parts": [{"PartNumber": 1, "ETag": c1}, {"PartNumber": 2, "ETag": c2}]})
    check(s3.get_object(Bucket="boto", Key="copied.bin")["Body"].read() == parts_data[0] + body,
          "upload_part_copy bytes")
    # an aborted upload leaves nothing behind
    up = s3.create_multipart_upload(Bucket="boto", Key="aborted.bin")
    s3.upload_part(Bucket="boto", Key="aborted.bin", UploadId=up["UploadId"], PartNumber=1, Body=b"z" * 100)
    s3.abort_multipart_upload(Bucket="boto", Key="aborted.bin", UploadId=up["UploadId"])
    check(code(s3.list_parts, Bucket="boto", Key="aborted.bin", UploadId=up["UploadId"])[0] == "NoSuchUpload",
          "parts of an aborted upload")
    check(code(s3.head_object, Bucket="boto", Key="aborted.bin")[1] == 404, "aborted object exists")
    # upload_file (s3transfer; multipart above its 8 MiB threshold) and download_file
    big = data(9 * 1024 * 1024 + 7, "transfer")
    write(a.workdir + "/t.bin", big)
    s3.upload_file(a.workdir + "/t.bin", "boto", "t.bin")
    s3.download_file("boto", "t.bin", a.workdir + "/t.back")
    check(read(a.workdir + "/t.back") == big, "upload_file/download_file bytes")
    # batch delete, then the bucket
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket="boto")["Contents"]]
    check(code(s3.delete_bucket, Bucket="boto") == ("BucketNotEmpty", 409), "delete non-empty bucket")
    d = s3.delete_objects(Bucket="boto", Delete={"Objects": [{"Key": k} for k in keys]})
    check(sorted(x["Key"] for x in d["Deleted"]) == sorted(keys) and not d.get("Errors"), "delete_objects %r" % d)
    check(s3.list_objects_v2(Bucket="boto")["KeyCount"] == 0, "objects left after delete_objects")
    s3.delete_object(Bucket="boto", Key="never-there")
    s3.delete_bucket(Bucket="boto")
    check(code(s3.head_bucket, Bucket="boto")[1] == 404, "bucket left after delete_bucket")


def section_signed(a):
    """Against a proxy started with --s3-keys-file (AKIDTESSERATEST / tessera-test-secret):
    the right key works, a wrong secret or an unknown key is refused, nothing is written."""
    import boto3
    from botocore.client import Config
    from botocore.exceptions import ClientError

    def client(ak, sk):
        return boto3.client("s3", endpoint_url=a.endpoint, region_name="us-east-1", aws_access_key_id=ak,
                            aws_secret_access_key=sk,
                            config=Config(s3={"addressing_style": "path"}, signature_version="s3v4",
                                          retries={"max_attempts": 1}))

    good = client("AKIDTESSERATEST", "tessera-test-secret")
    good.create_bucket(Bucket="signed")
    good.put_object(Bucket="signed", Key="k", Body=b"signed bytes")
    check(good.get_object(Bucket="signed", Key="k")["Body"].read() == b"signed bytes", "signed GET")
    url = good.generate_presigned_url("get_object", Params={"Bucket": "signed", "Key": "k"}, ExpiresIn=60)
    import urllib.request
    import urllib.error
    with urllib.request.urlopen(url) as resp:
        check(resp.read() == b"signed bytes", "presigned GET with a verified signature")
    try:
        urllib.request.urlopen(url.replace("X-Amz-Expires=60", "X-Amz-Expires=61"))
        fail("a tampered presigned URL was accepted")
    except urllib.error.HTTPError as e:
        check(e.code == 403 and b"SignatureDoesNotMatch" in e.read(), "tampered presigned URL: %d" % e.code)
    for ak, sk, want in (("AKIDTESSERATEST", "wrong-secret", "SignatureDoesNotMatch"),
                         ("AKIDUNKNOWN", "tessera-test-secret", "InvalidAccessKeyId")):
        bad = client(ak, sk)
        try:
            bad.put_object(Bucket="signed", Key="bad", Body=b"x")
            fail("PUT with %s/%s was accepted" % (ak, sk))
        except ClientError as e:
            check(e.response["Error"]["Code"] == want, "%s: got %s" % (want, e.response["Error"]["Code"]))
    try:
        good.head_object(Bucket="signed", Key="bad")
        fail("a refused PUT stored its object")
    except ClientError as e:
        check(e.response["ResponseMetadata"]["HTTPStatusCode"] == 404, "head of refused PUT")
    # unsigned requests are refused once keys are configured
    try:
        urllib.request.urlopen(a.endpoint + "/signed/k")
        fail("an anonymous GET was accepted")
    except urllib.error.HTTPError as e:
        check(e.code == 403 and b"AccessDenied" in e.read(), "anonymous GET: %d" % e.code)


def section_authorized(a):
    """Auth on, keys AKIDADMIN (user admin) and AKIDALICE (user alice: read,list on bucket perm):
    each key acts as its user with the native permissions."""
    import boto3
    from botocore.client import Config
    from botocore.exceptions import ClientError

    def client(ak, sk):
        return boto3.client("s3", endpoint_url=a.endpoint, region_name="us-east-1", aws_access_key_id=ak,
                            aws_secret_access_key=sk,
                            config=Config(s3={"addressing_style": "path"}, signature_version="s3v4",
                                          retries={"max_attempts": 1}))

    def code(fn, **kw):
        try:
            fn(**kw)
        except ClientError as e:
            return e.response["Error"]["Code"]
        return None

    admin = client("AKIDADMIN", "admin-s3-secret")
    alice = client("AKIDALICE", "alice-s3-secret")
    admin.create_bucket(Bucket="perm")
    admin.create_bucket(Bucket="hidden")
    admin.put_object(Bucket="perm", Key="k", Body=b"for alice")
    check(alice.get_object(Bucket="perm", Key="k")["Body"].read() == b"for alice", "alice reads perm")
    check([o["Key"] for o in alice.list_objects_v2(Bucket="perm")["Contents"]] == ["k"], "alice lists perm")
    check([b["Name"] for b in alice.list_buckets()["Buckets"]] == ["perm"], "alice sees only perm")
    check(code(alice.put_object, Bucket="perm", Key="x", Body=b"x") == "AccessDenied", "alice may not write")
    check(code(alice.delete_object, Bucket="perm", Key="k") == "AccessDenied", "alice may not delete")
    check(code(alice.create_bucket, Bucket="alices") == "AccessDenied", "alice may not create buckets")
    check(code(alice.get_object, Bucket="hidden", Key="k") == "AccessDenied", "alice may not read hidden")
    check(code(admin.head_object, Bucket="perm", Key="x") is not None, "alice's refused PUT stored an object")
    import urllib.request
    import urllib.error
    try:
        urllib.request.urlopen(a.endpoint + "/perm/k")
        fail("an anonymous GET was accepted with auth on")
    except urllib.error.HTTPError as e:
        check(e.code == 403, "anonymous GET with auth on: %d" % e.code)


def section_paging(a):
    """boto3's paginators over ListParts (25 parts, pages of 10) and ListMultipartUploads (12 uploads,
    pages of 5; then with a prefix and a delimiter)."""
    import boto3
    from botocore.client import Config
    s3 = boto3.client("s3", endpoint_url=a.endpoint, region_name="us-east-1",
                      aws_access_key_id="AKIDTESSERATEST", aws_secret_access_key="tessera-test-secret",
                      config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))
    s3.create_bucket(Bucket="paging")
    up = s3.create_multipart_upload(Bucket="paging", Key="big")["UploadId"]
    for n in range(1, 26):
        s3.upload_part(Bucket="paging", Key="big", UploadId=up, PartNumber=n, Body=data(100 + n, "part%d" % n))
    pages = list(s3.get_paginator("list_parts").paginate(Bucket="paging", Key="big", UploadId=up,
                                                         PaginationConfig={"PageSize": 10}))
    check([len(p["Parts"]) for p in pages] == [10, 10, 5], "ListParts pages: %s" % [len(p["Parts"]) for p in pages])
    check([p["IsTruncated"] for p in pages] == [True, True, False], "ListParts IsTruncated")
    check([p["NextPartNumberMarker"] for p in pages] == [10, 20, 25], "NextPartNumberMarker")
    check([p["PartNumberMarker"] for p in pages] == [0, 10, 20], "PartNumberMarker")
    check([q["PartNumber"] for p in pages for q in p["Parts"]] == list(range(1, 26)), "parts in order, each once")
    check([q["Size"] for p in pages for q in p["Parts"]] == [100 + n for n in range(1, 26)], "part sizes")
    one = s3.list_parts(Bucket="paging", Key="big", UploadId=up, MaxParts=3, PartNumberMarker=22)
    check([q["PartNumber"] for q in one["Parts"]] == [23, 24, 25] and not one["IsTruncated"], "ListParts marker 22")
    s3.abort_multipart_upload(Bucket="paging", Key="big", UploadId=up)

    made = []
    for i in range(12):
        key = "dir%d/obj%02d" % (i % 2, i) if i < 8 else "top%02d" % i
        made.append((key, s3.create_multipart_upload(Bucket="paging", Key=key)["UploadId"]))
    for i in range(2):  # two uploads of one key: ordered by upload id
        made.append(("twice", s3.create_multipart_upload(Bucket="paging", Key="twice")["UploadId"]))
    pages = list(s3.get_paginator("list_multipart_uploads").paginate(Bucket="paging",
                                                                     PaginationConfig={"PageSize": 5}))
    got = [(u["Key"], u["UploadId"]) for p in pages for u in p.get("Uploads", [])]
    check([len(p.get("Uploads", [])) for p in pages] == [5, 5, 4], "upload pages: %s" %
          [len(p.get("Uploads", [])) for p in pages])
    check(got == sorted(made), "uploads by key then id, each once: %s" % got)
    check(pages[0]["NextKeyMarker"] == got[4][0] and pages[0]["NextUploadIdMarker"] == got[4][1], "next markers")
    rolled = s3.list_multipart_uploads(Bucket="paging", Delimiter="/")
    check([p["Prefix"] for p in rolled.get("CommonPrefixes", [])] == ["dir0/", "dir1/"], "common prefixes")
    check(sorted(u["Key"] for u in rolled["Uploads"]) == ["top08", "top09", "top10", "top11", "twice", "twice"],
          "uploads beside the prefixes")
    pre = s3.list_multipart_uploads(Bucket="paging", Prefix="dir1/")
    check([u["Key"] for u in pre["Uploads"]] == ["dir1/obj01", "dir1/obj03", "dir1/obj05", "dir1/obj07"], "prefix")
    try:
        s3.list_parts(Bucket="paging", Key="twice", UploadId=made[-1][1], MaxParts=-1)
        fail("max-parts -1 was accepted")
    except Exception as e:  # botocore refuses it locally or the proxy answers InvalidArgument
        check("InvalidArgument" in str(e) or "MaxParts" in str(e) or "Invalid" in str(e), "max-parts -1: %s" % e)
    for key, uid in made:
        s3.abort_multipart_upload(Bucket="paging", Key=key, UploadId=uid)
    check(not s3.list_multipart_uploads(Bucket="paging").get("Uploads"), "uploads left after abort")
    s3.delete_bucket(Bucket="paging")


def section_virtualhost(a):
    """boto3 with addressing_style "virtual" against a proxy started with --s3-virtual-host VHOST
    (--vhost): requests go to http://BUCKET.VHOST:PORT/KEY. Names under VHOST resolve to 127.0.0.1
    through a resolver hook in this process (socket.getaddrinfo), so no /etc/hosts entry is needed."""
    import socket
    import urllib.parse
    import boto3
    from botocore.client import Config
    suffix = a.vhost
    check(suffix, "--vhost is needed")
    real = socket.getaddrinfo

    def resolve(host, *args, **kw):
        if isinstance(host, str) and (host == suffix or host.endswith("." + suffix)):
            host = "127.0.0.1"
        return real(host, *args, **kw)
    socket.getaddrinfo = resolve
    port = urllib.parse.urlsplit(a.endpoint).port
    for endpoint in ("http://%s:%d" % (suffix, port), a.root_endpoint.replace("127.0.0.1", suffix)):
        s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                          aws_access_key_id="AKIDTESSERATEST", aws_secret_access_key="tessera-test-secret",
                          config=Config(s3={"addressing_style": "virtual"}, retries={"max_attempts": 1}))
        seen = []
        s3.meta.events.register("before-send", lambda request, **kw: seen.append(request.url))
        bucket = "vhost%d" % len(endpoint)
        s3.create_bucket(Bucket=bucket)
        s3.put_object(Bucket=bucket, Key="dir/k 1.txt", Body=b"virtual host bytes", Metadata={"m": "v"})
        got = s3.get_object(Bucket=bucket, Key="dir/k 1.txt")
        check(got["Body"].read() == b"virtual host bytes" and got["Metadata"] == {"m": "v"}, "virtual GET")
        check(any(u.startswith("http://%s.%s:" % (bucket, suffix)) for u in seen),
              "boto3 did not use the virtual-host URL: %s" % seen[:3])
        keys = [o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix="dir/")["Contents"]]
        check(keys == ["dir/k 1.txt"], "virtual ListObjectsV2: %s" % keys)
        check(bucket in [b["Name"] for b in s3.list_buckets()["Buckets"]], "ListBuckets at the suffix")
        url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "dir/k 1.txt"}, ExpiresIn=60)
        check(url.startswith("http://%s.%s:" % (bucket, suffix)), "presigned URL: " + url)
        import urllib.request
        with urllib.request.urlopen(url) as resp:
            check(resp.read() == b"virtual host bytes", "presigned virtual-host GET")
        up = s3.create_multipart_upload(Bucket=bucket, Key="mp")["UploadId"]
        e1 = s3.upload_part(Bucket=bucket, Key="mp", UploadId=up, PartNumber=1, Body=data(5 << 20, "v1"))["ETag"]
        e2 = s3.upload_part(Bucket=bucket, Key="mp", UploadId=up, PartNumber=2, Body=b"tail")["ETag"]
        s3.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=up, MultipartUpload={
            "Parts": [{"PartNumber": 1, "ETag": e1}, {"PartNumber": 2, "ETag": e2}]})
        check(s3.head_object(Bucket=bucket, Key="mp")["ContentLength"] == (5 << 20) + 4, "virtual multipart")
        s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": "dir/k 1.txt"}, {"Key": "mp"}]})
        s3.delete_bucket(Bucket=bucket)


def stored_key_clients(a):
    """--keys ADMIN_AK:ADMIN_SK,ALICE_AK:ALICE_SK: keys made with `tessera s3-key create`."""
    import boto3
    from botocore.client import Config
    pairs = [k.split(":", 1) for k in a.keys.split(",")]
    check(len(pairs) == 2 and all(len(p) == 2 for p in pairs), "--keys needs ADMIN_AK:SK,ALICE_AK:SK")

    def client(ak, sk):
        return boto3.client("s3", endpoint_url=a.endpoint, region_name="us-east-1", aws_access_key_id=ak,
                            aws_secret_access_key=sk,
                            config=Config(s3={"addressing_style": "path"}, signature_version="s3v4",
                                          retries={"max_attempts": 1}))
    return client(*pairs[0]), client(*pairs[1])


def error_code(fn, **kw):
    from botocore.exceptions import ClientError
    try:
        fn(**kw)
    except ClientError as e:
        return e.response["Error"]["Code"]
    return None


def section_storedkeys(a):
    """Auth on, keys from users.db: admin's, and alice's (read on bucket "bucka" only)."""
    admin, alice = stored_key_clients(a)
    admin.create_bucket(Bucket="bucka")
    admin.create_bucket(Bucket="buckb")
    admin.put_object(Bucket="bucka", Key="k", Body=b"a's bytes")
    admin.put_object(Bucket="buckb", Key="k", Body=b"b's bytes")
    check(alice.get_object(Bucket="bucka", Key="k")["Body"].read() == b"a's bytes", "alice reads bucka")
    check(error_code(alice.get_object, Bucket="buckb", Key="k") == "AccessDenied", "alice may not read buckb")
    check(error_code(alice.put_object, Bucket="bucka", Key="new", Body=b"x") == "AccessDenied",
          "alice may not write bucka")
    check(error_code(alice.list_objects_v2, Bucket="bucka") == "AccessDenied", "alice may not list bucka")
    check(error_code(admin.head_object, Bucket="bucka", Key="new") == "404", "alice's refused PUT stored an object")


def section_storedkeys_deleted(a):
    """After `tessera s3-key rm` of alice's key (and after a proxy restart): alice's key is
    unknown, the admin's still works."""
    admin, alice = stored_key_clients(a)
    check(error_code(alice.get_object, Bucket="bucka", Key="k") == "InvalidAccessKeyId",
          "a deleted key: %s" % error_code(alice.get_object, Bucket="bucka", Key="k"))
    check(admin.get_object(Bucket="bucka", Key="k")["Body"].read() == b"a's bytes", "admin's key after the change")


def section_storedkeys_unsealable(a):
    """The proxy restarted with another s3-secrets.key: the admin's stored secret no longer opens,
    and its requests are refused with 500 InternalError, never checked against a wrong secret."""
    admin, alice = stored_key_clients(a)
    got = error_code(admin.get_object, Bucket="bucka", Key="k")
    check(got == "InternalError", "a secret sealed under another key: %s" % got)
    check(error_code(alice.get_object, Bucket="bucka", Key="k") == "InvalidAccessKeyId", "alice's deleted key")


def section_webdataset(a):
    """A WebDataset-style reader over `pipe:aws s3 cp s3://.../shard.tar -`."""
    aws = ["aws", "--endpoint-url", a.endpoint]
    buf = io.BytesIO()
    samples = {}
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for i in range(10):
            for ext, payload in (("cls", str(i % 3).encode()), ("jpg", data(2000 + i, "img%d" % i))):
                name = "sample%04d.%s" % (i, ext)
                ti = tarfile.TarInfo(name)
                ti.size = len(payload)
                tar.addfile(ti, io.BytesIO(payload))
                samples.setdefault("sample%04d" % i, {})[ext] = payload
    write(a.workdir + "/shard-0000.tar", buf.getvalue())
    run(aws + ["s3", "mb", "s3://wds"])
    run(aws + ["s3", "cp", a.workdir + "/shard-0000.tar", "s3://wds/shard-0000.tar"])
    # What webdataset's pipe: URL does: read the shard from the command's stdout.
    p = subprocess.Popen(aws + ["s3", "cp", "s3://wds/shard-0000.tar", "-"], stdout=subprocess.PIPE, env=ENV)
    got = {}
    with tarfile.open(fileobj=p.stdout, mode="r|") as tar:
        for m in tar:
            key, ext = m.name.split(".", 1)
            got.setdefault(key, {})[ext] = tar.extractfile(m).read()
    check(p.wait() == 0, "aws s3 cp to stdout failed")
    check(got == samples, "WebDataset samples read through pipe:aws s3 cp differ")
    run(aws + ["s3", "rb", "--force", "s3://wds"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("section")
    ap.add_argument("--endpoint", required=True)
    ap.add_argument("--root-endpoint", default="")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--ca", default="")
    ap.add_argument("--keys", default="")
    ap.add_argument("--vhost", default="")
    a = ap.parse_args()
    if a.ca:
        for env in (ENV, os.environ):
            env["AWS_CA_BUNDLE"] = a.ca
            env["SSL_CERT_FILE"] = a.ca
    globals()["section_" + a.section.replace("-", "_")](a)
    print("ok " + a.section)


if __name__ == "__main__":
    main()
