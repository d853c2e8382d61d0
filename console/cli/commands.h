#pragma once
// One function per CLI command; each parses its own arguments from ctx.args
// and returns an exit code.

#include "cli_context.h"

namespace tessera::cli {

int cmdLogin(CliContext& ctx);
int cmdLogout(CliContext& ctx);
int cmdWhoami(CliContext& ctx);
// The password for `user`: prompted for without echo on a terminal, else the
// first line of stdin (a script: `printf '%s\n' "$PW" | tessera login --user U`).
api::Result<std::string> readPassword(CliContext& ctx, const std::string& user);
// commands_access.cpp: users, grants and token keys (admins).
int cmdUserList(CliContext& ctx);
int cmdUserAdd(CliContext& ctx);
int cmdUserRemove(CliContext& ctx);
int cmdUserPasswd(CliContext& ctx);
int cmdBucketGrant(CliContext& ctx);
int cmdBucketRevoke(CliContext& ctx);
int cmdAuthKeys(CliContext& ctx);
int cmdAuthRotate(CliContext& ctx);
int cmdAuthPushKeys(CliContext& ctx);
int cmdAuthDropKey(CliContext& ctx);
// commands_s3_key.cpp: S3 access keys (admins, or a user for themself).
int cmdS3KeyCreate(CliContext& ctx);
int cmdS3KeyList(CliContext& ctx);
int cmdS3KeyRemove(CliContext& ctx);
int cmdClusterShow(CliContext& ctx);
int cmdClusterDecommission(CliContext& ctx);
int cmdNodeMaintenanceStart(CliContext& ctx);
int cmdNodeMaintenanceStop(CliContext& ctx);
int cmdBucketCreate(CliContext& ctx);
int cmdBucketList(CliContext& ctx);
int cmdBucketRemove(CliContext& ctx);
int cmdBucketProps(CliContext& ctx);
int cmdList(CliContext& ctx);
int cmdPut(CliContext& ctx);
int cmdGet(CliContext& ctx);
int cmdCat(CliContext& ctx);
int cmdHead(CliContext& ctx);
int cmdRemove(CliContext& ctx);
int cmdShowPerf(CliContext& ctx);
int cmdWatch(CliContext& ctx);
int cmdJobStart(CliContext& ctx);
int cmdJobList(CliContext& ctx);
int cmdJobShow(CliContext& ctx);
int cmdJobWait(CliContext& ctx);
int cmdJobAbort(CliContext& ctx);
int cmdDemoFashionMnist(CliContext& ctx);
int cmdBench(CliContext& ctx);
int cmdArchiveList(CliContext& ctx);
int cmdArchiveGet(CliContext& ctx);
int cmdArchivePut(CliContext& ctx);
int cmdArchiveBucket(CliContext& ctx);
int cmdIshard(CliContext& ctx);
int cmdDsortStart(CliContext& ctx);
int cmdDsortShow(CliContext& ctx);
int cmdDsortWait(CliContext& ctx);
int cmdDsortAbort(CliContext& ctx);
int cmdDsortRemove(CliContext& ctx);
int cmdEtlInit(CliContext& ctx);
int cmdEtlList(CliContext& ctx);
int cmdEtlShow(CliContext& ctx);
int cmdEtlLogs(CliContext& ctx);
int cmdEtlStart(CliContext& ctx);
int cmdEtlStop(CliContext& ctx);
int cmdEtlRemove(CliContext& ctx);
int cmdEtlObject(CliContext& ctx);
int cmdEtlBucket(CliContext& ctx);

}  // namespace tessera::cli
