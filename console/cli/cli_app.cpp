#include "cli_app.h"

#include "api/cluster_msg.h"
#include "api/http_error.h"
#include "api/paths.h"
#include "api/smap.h"
#include "api/uri.h"
#include "client/http_client.h"
#include "commands.h"
#include "credentials.h"
#include "token_file.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace tessera::cli {

namespace {

struct Command {
    std::vector<std::string> words;
    std::string synopsis;  // after "tessera "
    std::string summary;   // one line, for the command list
    std::string details;   // options and behaviour, for "COMMAND --help"
    std::function<int(CliContext&)> run;
};

const std::vector<Command>& commands()
{
    static const std::vector<Command> kCommands = {
        {{"cluster", "show"},
         "cluster show",
         "cluster map, bucket count, capacity per target",
         "Shows the proxy and targets of the cluster map with their URLs, the map and\n"
         "bucket metadata versions, and each target's mountpaths.\n",
         cmdClusterShow},
        {{"cluster", "decommission"},
         "cluster decommission TARGET_ID [--wait] [--timeout SECONDS]",
         "take a target out of the cluster for good (a present one moves its objects first)",
         "PUT /v1/cluster decommission-node. A present target is flagged decommissioning:\n"
         "it owns nothing any more and keeps serving what it holds while a rebalance moves\n"
         "its objects to the other targets; when that rebalance ends without errors it\n"
         "leaves the map and its process exits. If the rebalance fails, it stays flagged\n"
         "(see \"job ls\"); running the command again starts another. Refused (409) for a\n"
         "target in maintenance and for the last target that can own objects.\n"
         "A target that missed its keepalives is away: it stays in the map and its\n"
         "objects answer 503 until it returns. When it will not return, this removes it\n"
         "at once: its objects are then owned by the other targets, which hold no copy\n"
         "of them (unless the bucket is mirrored or erasure coded).\n"
         "  --wait            wait until the target has left the map\n"
         "  --timeout S       with --wait, give up after S seconds (default 600)\n",
         cmdClusterDecommission},
        {{"node", "maintenance", "start"},
         "node maintenance start TARGET_ID",
         "put a target in maintenance: it stays in the map, its objects answer 503",
         "A target in maintenance keeps owning its objects: requests for them answer 503\n"
         "naming it, listings answer 503, and no rebalance starts for it (PUT /v1/cluster\n"
         "start-maintenance). A target stopped with SIGTERM does this itself. It leaves\n"
         "maintenance with \"node maintenance stop\" or when it restarts and joins.\n",
         cmdNodeMaintenanceStart},
        {{"node", "maintenance", "stop"},
         "node maintenance stop TARGET_ID",
         "take a present target out of maintenance",
         "Refused (409) for a target that sends no keepalives: a stopped target leaves\n"
         "maintenance when it restarts and joins.\n",
         cmdNodeMaintenanceStop},
        {{"show", "cluster"},
         "show cluster",
         "the same as \"cluster show\": nodes and capacity per mountpath",
         "Shows the proxy and targets with their URLs, the map and bucket metadata\n"
         "versions, and every mountpath's used/available/total bytes and state.\n",
         cmdClusterShow},
        {{"show", "perf"},
         "show perf [--refresh 1s] [--count N]",
         "live per-node GET/PUT ops/s, MB/s, p99 latency, errors, CPU, memory",
         "Reads every node's counters (GET /v1/cluster?what=node_stats) once per\n"
         "refresh and prints the rates over that interval, with cluster totals.\n"
         "  --refresh D    interval: 500ms, 1s (default), 2m\n"
         "  --count N      print N tables and exit (default: until interrupted)\n"
         "With --json: one JSON document per interval.\n",
         cmdShowPerf},
        {{"watch"},
         "watch [--topics LIST] [--interval-ms N] [--count N]",
         "print the live feed (WebSocket /v1/ws) as it arrives",
         "Connects to the proxy's feed and prints one line per message: the snapshot,\n"
         "metrics, cluster map and bucket changes, job progress, events.\n"
         "  --topics LIST    comma-separated: metrics,smap,bmd,job,event (default all)\n"
         "  --interval-ms N  metrics cadence, 250..10000 (default the proxy's)\n"
         "  --count N        stop after N messages (the snapshot counts)\n"
         "With --json: each message exactly as received, one per line.\n",
         cmdWatch},
        {{"login"},
         "login --user NAME",
         "log in (auth on): keep a token for the following commands",
         "Asks the proxy for a token (POST /v1/tokens). The password is prompted for\n"
         "without echo on a terminal, else read from the first line of stdin. The\n"
         "access token (15 min) and the refresh token (24 h) are kept with the proxy's\n"
         "URL in a file of mode 0600: --token-file, else $TESSERA_TOKEN_FILE, else\n"
         "$XDG_CONFIG_HOME/tessera/token, else ~/.config/tessera/token. Every command\n"
         "then sends the access token to that proxy (Authorization: Bearer) and\n"
         "refreshes it when it is about to expire. $TESSERA_TOKEN, when set, is sent\n"
         "instead (never stored nor refreshed).\n",
         cmdLogin},
        {{"logout"},
         "logout",
         "revoke the stored tokens and remove the token file",
         "Revokes the refresh and access tokens at the proxy that issued them\n"
         "(DELETE /v1/tokens; every target refuses them at once) and removes the file.\n",
         cmdLogout},
        {{"whoami"}, "whoami", "the user the token names, with its grants", "", cmdWhoami},
        {{"user", "ls"}, "user ls", "list users with their grants (admins)", "", cmdUserList},
        {{"user", "add"},
         "user add NAME [--admin]",
         "add a user (admins)",
         "The password (8..1024 bytes) is prompted for without echo on a terminal,\n"
         "else read from the first line of stdin.\n"
         "  --admin   the user may do everything, on every bucket\n",
         cmdUserAdd},
        {{"user", "rm"},
         "user rm NAME [--yes]",
         "remove a user and its grants (admins)",
         "  --yes     do not ask; required when stdin is not a terminal\n",
         cmdUserRemove},
        {{"user", "passwd"},
         "user passwd NAME",
         "set a user's password (admins)",
         "The password is read as for user add.\n",
         cmdUserPasswd},
        {{"bucket", "grant"},
         "bucket grant BUCKET USER PERMISSIONS",
         "give a user permissions on a bucket (admins)",
         "PERMISSIONS is a comma-separated list of read, list, write, delete and\n"
         "admin-bucket; BUCKET \"*\" is every bucket.\n",
         cmdBucketGrant},
        {{"bucket", "revoke"},
         "bucket revoke BUCKET USER PERMISSIONS",
         "take permissions on a bucket away from a user (admins)",
         "PERMISSIONS as for bucket grant; each must be held on exactly that BUCKET.\n",
         cmdBucketRevoke},
        {{"auth", "keys"}, "auth keys", "show the token-key ring (admins)", "", cmdAuthKeys},
        {{"auth", "rotate"},
         "auth rotate",
         "sign new tokens with a new key (admins)",
         "Adds a new key id to the ring (at most 8); the proxy signs with it at once\n"
         "and every target verifies it. Tokens signed with older keys stay valid until\n"
         "their key is dropped. No secret leaves a node: each derives the key from\n"
         "the cluster key and the id.\n",
         cmdAuthRotate},
        {{"auth", "push-keys"},
         "auth push-keys",
         "push the token-key ring to every target again (admins)",
         "For a target that was unreachable when the ring changed.\n",
         cmdAuthPushKeys},
        {{"auth", "drop-key"},
         "auth drop-key KEY",
         "drop a key: every node refuses the tokens it signed (admins)",
         "The newest key cannot be dropped (rotate first).\n",
         cmdAuthDropKey},
        {{"s3-key", "create"},
         "s3-key create [--user NAME] [--description TEXT]",
         "make an S3 access key that acts as a user (admins, or yourself)",
         "Prints the access key id and its secret; the secret is shown this once (the\n"
         "proxy keeps it sealed). S3 clients signing with the key (aws, s3cmd, boto3)\n"
         "act as the user, with the user's grants (docs/s3.md).\n"
         "  --user NAME         the key's user (default: the logged-in user)\n"
         "  --description TEXT  a note for the key list (at most 256 bytes)\n",
         cmdS3KeyCreate},
        {{"s3-key", "ls"},
         "s3-key ls [--user NAME | --all]",
         "list S3 access keys, never their secrets",
         "  --user NAME   that user's keys (default: the logged-in user's)\n"
         "  --all         every user's keys (admins)\n",
         cmdS3KeyList},
        {{"s3-key", "rm"},
         "s3-key rm ACCESS_KEY [--user NAME]",
         "delete an S3 access key: refused from the next request",
         "  --user NAME   the key's user (default: the logged-in user)\n",
         cmdS3KeyRemove},
        {{"bucket", "create"}, "bucket create NAME", "create a bucket", "", cmdBucketCreate},
        {{"bucket", "ls"}, "bucket ls", "list buckets", "", cmdBucketList},
        {{"bucket", "rm"},
         "bucket rm NAME [--yes]",
         "destroy a bucket and every object in it",
         "  --yes          do not ask; required when stdin is not a terminal\n",
         cmdBucketRemove},
        {{"bucket", "props"},
         "bucket props NAME [--set KEY=VALUE]...",
         "show or change bucket properties",
         "  --set KEY=VALUE  change one property; KEY may be nested with dots and VALUE\n"
         "                   is JSON when it parses as JSON, else a string, e.g.\n"
         "                   --set checksum.validate_warm_get=true\n",
         cmdBucketProps},
        {{"ls"},
         "ls BUCKET[/PREFIX] [--prefix P] [--limit N] [--paged] [--pagesize N] [--props LIST]",
         "list objects",
         "  --prefix P     only names starting with P (overrides BUCKET/PREFIX)\n"
         "  --limit N      stop after N objects; the listing is then reported incomplete\n"
         "  --paged        print each page as it arrives, with its number\n"
         "                 (with --json: one JSON document per page)\n"
         "  --pagesize N   objects per page, 1..10000\n"
         "  --props LIST   comma-separated: name,size,checksum,atime,version\n"
         "The last line says whether the listing is complete.\n",
         cmdList},
        {{"put"},
         "put FILE|DIR BUCKET[/NAME] [--workers N] [--prefix P] [--verify] [--via-proxy]",
         "upload a file, or a directory tree in parallel",
         "A file goes to NAME, or to its own file name (NAME ending in '/' is a folder).\n"
         "A directory is walked recursively; object names are NAME/ plus the path\n"
         "below DIR with '/' separators; only regular files are sent.\n"
         "  --workers N    parallel uploads, 1..256 (default 8)\n"
         "  --prefix P     prepended verbatim to every object name\n"
         "  --verify       send each file's xxhash64 for the target to check\n"
         "  --via-proxy    send through the proxy's redirects instead of straight\n"
         "                 to each object's target\n"
         "Exits 1 when any upload failed; the failures are listed.\n",
         cmdPut},
        {{"get"},
         "get BUCKET/NAME [FILE|-]",
         "download an object",
         "FILE defaults to the object's file name; a directory receives the file\n"
         "under that name; '-' writes to stdout. A file is written whole or not at all.\n",
         cmdGet},
        {{"cat"}, "cat BUCKET/NAME", "write an object to stdout", "", cmdCat},
        {{"head"}, "head BUCKET/NAME", "show an object's size, checksum, version, atime, target", "", cmdHead},
        {{"rm"}, "rm BUCKET/NAME...", "delete objects", "Exits 1 when any deletion failed.\n", cmdRemove},
        {{"archive", "ls"},
         "archive ls BUCKET/SHARD",
         "list a shard's members with their sizes",
         "Works for .tar, .tgz/.tar.gz, .tar.lz4 and .zip shards. A shard that cannot\n"
         "be read (damaged, unsafe, over a limit) is an error naming the reason.\n"
         "The last line says the listing is complete.\n",
         cmdArchiveList},
        {{"archive", "get"},
         "archive get BUCKET/SHARD MEMBER|--regex R [--mode M]|--wdskey KEY [OUT|-]",
         "read one member, or the members that match as one .tar",
         "  MEMBER         the member's path in the shard (archpath)\n"
         "  --regex R      every member that matches R, as one .tar (archregx)\n"
         "  --mode M       how R matches: regexp (default), prefix, suffix, substr, wdskey\n"
         "  --wdskey KEY   every file of one WebDataset sample (the same as --mode wdskey)\n"
         "  --mime F       the shard's format when its name does not say: tar, tgz,\n"
         "                 tar.lz4, zip (archmime)\n"
         "OUT defaults to the member's file name (SHARD-selection.tar for a selection);\n"
         "'-' writes to stdout. A file is written whole or not at all.\n",
         cmdArchiveGet},
        {{"archive", "put"},
         "archive put --append FILE BUCKET/SHARD MEMBER",
         "append FILE to a shard as MEMBER (creating the shard when absent)",
         "Appends are serialized per shard; readers see the old or the new shard,\n"
         "never a partial one. A .tar keeps its bytes; other formats are rewritten\n"
         "(a member of the same name is replaced).\n"
         "  --mime F       the shard's format when its name does not say\n",
         cmdArchivePut},
        {{"archive", "bucket"},
         "archive bucket SRC DST/SHARD --template T | --list a,b,c [--append] [--include-src-bck] [--wait]",
         "create one shard from many objects of SRC (an archive job)",
         "The target owning DST/SHARD builds it, reading every source object locally\n"
         "or from its target; the shard appears whole when complete, never partial.\n"
         "  --template T        a brace template naming the objects: img-{0000..0999}.jpg\n"
         "  --list a,b,c        the objects, comma-separated, in shard order\n"
         "  --append            add to DST/SHARD when it exists (its members are kept)\n"
         "  --include-src-bck   name members SRC/OBJECT instead of OBJECT\n"
         "  --continue-on-err   skip missing sources (counted as errors) instead of failing\n"
         "  --mime F            the shard's format when its name does not say: tar, tgz,\n"
         "                      tar.lz4, zip\n"
         "  --wait              wait for the job and print its final status\n"
         "At most 100000 objects per shard. Without --wait, prints the job id.\n",
         cmdArchiveBucket},
        {{"ishard"},
         "ishard (SRC[/PREFIX] DST | -f SPEC) [--shard-size 16MiB | --sample-count N] [--template T] [--ext .tar] "
         "[--sort alpha|shuffle:SEED|none] [--missing-ext abort|warn|ignore|exclude --expect .png,.cls] "
         "[--dry-run] [--wait]",
         "turn loose files into WebDataset shards (an ishard job)",
         "Groups SRC's objects (under PREFIX) into samples by WebDataset key (the name up\n"
         "to the first dot of its last component) and writes them to shards in DST. A\n"
         "sample is never split; its files stay together, ordered by extension.\n"
         "  -f SPEC            the spec from a file (.json, .yaml/.yml; - for stdin);\n"
         "                     SRC DST and the options override its fields\n"
         "  --shard-size S     cut a shard before the next sample would pass S (as .tar):\n"
         "                     16MiB (default), 100MB, 1GiB; or\n"
         "  --sample-count N   N samples per shard\n"
         "  --template T       shard names, the extension appended (shard-{000000..999999})\n"
         "  --ext E            .tar (default), .tgz, .tar.gz, .tar.lz4, .zip\n"
         "  --sort O           alpha (by key, default), shuffle:SEED (reproducible),\n"
         "                     shuffle (a random seed), none (listing order)\n"
         "  --missing-ext A    a sample lacking one of --expect: abort (nothing starts),\n"
         "                     warn, ignore (default), exclude (left out)\n"
         "  --expect LIST      the extensions every sample has: .png,.cls,.json\n"
         "  --key-pattern RE   a regex whose group 1 is the sample key (instead of WebDataset's)\n"
         "  --dry-run          print the plan (shards, samples, sizes); start nothing\n"
         "  --wait             wait for the job and print its final status\n"
         "At most 1000000 objects per job.\n",
         cmdIshard},
        {{"dsort", "start"},
         "dsort start [SRC DST] [-f SPEC.json|SPEC.yaml | -f -] [--input T] [--shard-size S] [--algorithm K] [--seed "
         "N] "
         "[--output T] [--output-ext E] [--dry-run] [--wait]",
         "distributed shuffle/sort of shards into new shards (a dSort job)",
         "Starts a dSort (POST /v1/sort) from a spec file (-f FILE: JSON, or YAML when it\n"
         "ends in .yaml/.yml; -f - for stdin), and/or these shortcuts, which override\n"
         "the spec's fields:\n"
         "  SRC DST            input_bck and output_bck\n"
         "  --input T          input_format template: shard-{0000..0099}\n"
         "  --input-ext E      input_extension: .tar (default), .tgz, .tar.lz4, .zip\n"
         "  --output T         output_format template (default shard-{00000..99999})\n"
         "  --output-ext E     output_extension (default: the input's; a different one converts)\n"
         "  --shard-size S     output_shard_size: 100MB, 256MiB, or \"1000 records\"\n"
         "  --algorithm K      alphanumeric (default), shuffle, content, none\n"
         "  --seed N           the shuffle's seed (same seed, same output)\n"
         "  --dry-run          do everything but write the output shards\n"
         "  --wait             wait for the job and print its final status\n"
         "The spec is checked here first, with the same rules as the proxy's.\n"
         "Prints the job id; see docs/dsort.md for the spec.\n",
         cmdDsortStart},
        {{"dsort", "show"},
         "dsort show [ID] [--once] [--refresh MS]",
         "dSort jobs, or one job live: phase, progress and times per target",
         "Without ID: every dSort job. With ID: its state and each target's phase,\n"
         "progress and phase times, redrawn every --refresh milliseconds (default 1000)\n"
         "until the job ends; --once prints it once.\n",
         cmdDsortShow},
        {{"dsort", "wait"},
         "dsort wait ID [--timeout SECONDS]",
         "wait until a dSort job ends; exit 0 only if it finished",
         "Shows progress on stderr while waiting; prints the final status per target.\n",
         cmdDsortWait},
        {{"dsort", "abort"},
         "dsort abort ID",
         "abort a dSort job on every target (its output is removed)",
         "",
         cmdDsortAbort},
        {{"dsort", "rm"}, "dsort rm ID", "forget a finished dSort job", "", cmdDsortRemove},
        {{"etl", "init"},
         "etl init (-f SPEC.json|SPEC.yaml | --name NAME [--comm io|hpush|hpull] [options] -- COMMAND [ARG...])",
         "start a transformer on every target (PUT /v1/etl)",
         "The spec (docs/etl.md) from a file, or from the options, which override it:\n"
         "  --name NAME           2 to 32 of a-z 0-9 - _\n"
         "  --comm C              io (default; one process per object), hpush, hpull\n"
         "  --obj-timeout D       one object's limit, e.g. 30s (default 1m)\n"
         "  --init-timeout D      hpush/hpull: until GET /health answers (default 30s)\n"
         "  --max-output S        largest result, e.g. 64MiB (default 256MiB)\n"
         "  --pool N              io: processes at once per target (default 2 x cores)\n"
         "  --framing length      io: keep the processes alive, one object per frame\n"
         "                        (8-byte big-endian length + bytes; default none)\n"
         "  --env NAME=VALUE      added to the transformer's environment (repeatable)\n"
         "  -- COMMAND [ARG...]   the executable (inside the targets' etl_bin_dirs) and its argv;\n"
         "                        {port} and {args} are replaced (no shell runs it)\n",
         cmdEtlInit},
        {{"etl", "ls"}, "etl ls", "every ETL: stage, objects and bytes in/out, errors", "", cmdEtlList},
        {{"etl", "show"}, "etl show NAME", "an ETL's spec and its state on each target", "", cmdEtlShow},
        {{"etl", "logs"}, "etl logs NAME [--target ID]", "each transformer's recent stderr", "", cmdEtlLogs},
        {{"etl", "start"}, "etl start NAME", "start a stopped ETL on every target", "", cmdEtlStart},
        {{"etl", "stop"}, "etl stop NAME", "stop an ETL's transformers (kept in the registry)", "", cmdEtlStop},
        {{"etl", "rm"}, "etl rm NAME", "stop an ETL and remove it", "", cmdEtlRemove},
        {{"etl", "object"},
         "etl object NAME BUCKET/OBJECT [FILE|-] [--args A] [--pipeline N2,N3] [--archpath MEMBER]",
         "read one object (or shard member) through the ETL",
         "Writes to stdout by default; a FILE appears only when the transform succeeded.\n",
         cmdEtlObject},
        {{"etl", "bucket"},
         "etl bucket NAME SRC DST [--prefix P | --template T | --list A,B] [--ext png:jpg] [--per-sample "
         "[--sample-ext png]] [--dry-run] [--continue-on-error] [--workers N] [--wait]",
         "transform a bucket's objects into another bucket (an etl-bck job)",
         "Each target transforms the objects it holds and writes each result to the\n"
         "target that owns the destination name. DST is created when missing.\n"
         "  --ext FROM:TO        rename the destination (repeatable); with --per-sample,\n"
         "                       the members' extensions\n"
         "  --per-sample         each shard becomes a shard of the same name whose members\n"
         "                       (those of --sample-ext, or all) went through the ETL\n"
         "  --dry-run            transform and count, write nothing\n"
         "  --continue-on-error  skip failing objects (listed in the job) instead of failing\n"
         "  --wait               wait for the job and print its final status\n",
         cmdEtlBucket},
        {{"job", "start"},
         "job start KIND [--bucket NAME]",
         "start a job on every target (kinds: rebalance, reprotect, scrub)",
         "rebalance: every target moves the objects it holds but no longer owns (after\n"
         "targets joined or left, or mountpaths changed) to their owners, and the owners\n"
         "of mirrored objects make the copies their holders lack.\n"
         "reprotect [--bucket NAME]: the same for one bucket (or all): every object gets\n"
         "the copies its bucket's mirror props ask for; copies no longer asked for go.\n"
         "scrub [--bucket NAME]: every copy is read and checked against its checksum; a\n"
         "damaged copy of a mirrored object is replaced from a good one (counters:\n"
         "checked, corrupt, repaired, unrepairable).\n"
         "archive and ishard jobs take arguments: \"tessera archive bucket\", \"tessera ishard\".\n"
         "Prints the job id; \"tessera job wait ID\" follows it.\n",
         cmdJobStart},
        {{"job", "ls"}, "job ls", "list running and recent jobs", "", cmdJobList},
        {{"job", "show"}, "job show ID", "a job's state, phase and progress, per target", "", cmdJobShow},
        {{"job", "wait"},
         "job wait ID [--timeout SECONDS]",
         "wait until a job ends; exit 0 only if it finished",
         "Shows progress on stderr while waiting; prints the final status.\n"
         "  --timeout S    give up after S seconds (exit 1); default: no limit\n",
         cmdJobWait},
        {{"job", "abort"}, "job abort ID", "abort a job on every target", "", cmdJobAbort},
        {{"bench"},
         "bench MODE --bucket B [options] | bench shard-scan|file-put --dir DIR | bench --url-get|--url-put URL",
         "load generator: PUT/GET/mixed/list ops/s, MB/s, samples/s and latency percentiles",
         "Modes (objects in --bucket; through the proxy, which redirects, unless --direct):\n"
         "  put            PUT new objects PREFIX + obj-00000000, obj-00000001, ...\n"
         "  get            GET objects that exist: those under --prefix, or first PUT\n"
         "                 --count-objects N of them (PREFIX + obj-%08u) and read those\n"
         "  mixed          GET and PUT (overwrite) the same objects; --pct-put N % PUTs\n"
         "  list           list the bucket (--prefix) page by page through the proxy\n"
         "  shard-read     GET whole shards (all under --prefix) and read every member with\n"
         "                 libarchive: samples/s, a WebDataset loader's view\n"
         "  loose-read     GET loose objects (all under --prefix), each counted as one sample\n"
         "  shard-scan     no cluster: read the shard files of --dir DIR from memory with\n"
         "                 libarchive (the reference for shard-read)\n"
         "  file-put       no cluster: write files under --dir DIR the way a target commits\n"
         "                 an object with fsync on (work file, fdatasync, attribute, rename,\n"
         "                 directory fsync; --fsync off skips the syncs): the reference for put\n"
         "  --url-get URL  GET any HTTP server's URL (nginx, for a comparison); with\n"
         "                 --count-objects N, \"{i}\" in URL takes 00000000..N-1\n"
         "  --url-put URL  PUT to URL; a URL ending in '/' gets a new file per PUT\n"
         "Options:\n"
         "  --workers N          concurrent requests, each on its own connection(s); 1..4096 (16)\n"
         "  --threads N          I/O threads (default: min(workers, CPUs))\n"
         "  --duration D         run for D: 500ms, 10s (default), 2m, 1h; or\n"
         "  --count N            stop after N operations\n"
         "  --size S             object size: 4096, 1KiB, 1MiB, 64MiB (default 1KiB), or\n"
         "  --min-size S --max-size S   sizes uniform in [min, max]; at most 4GiB\n"
         "  --bucket B           required for Tessera modes; created if missing when the\n"
         "                       run writes (put, mixed, --count-objects)\n"
         "  --prefix P           object name prefix (put, get, mixed) or listing prefix\n"
         "  --count-objects N    get, mixed: PUT N objects first (1..10000000)\n"
         "  --pct-put N          mixed: share of PUTs, 0..100 (default 50)\n"
         "  --pagesize N         list: names per page, 1..10000 (default: the proxy's)\n"
         "  --props LIST         list: properties asked for (default name; name,size as ishard's planner)\n"
         "  --direct             read the cluster map, compute HRW, go straight to the target\n"
         "  --verify             GET: xxhash64 of each body vs its ais-checksum-value\n"
         "  --keepalive on|off   reuse connections (default on); --no-keepalive = off\n"
         "  --interval D         one row per D (default 1s, at least 100ms)\n"
         "  --timeout D          per request, redirects included (default 30s)\n"
         "  --dir DIR            shard-scan: the folder of shard files (read into memory, <= 8GiB);\n"
         "                       file-put: the folder the files go to (left there)\n"
         "  --fsync on|off       file-put: sync each file and its directory (default on)\n"
         "  --dirs N             file-put: deal the files over N folders DIR/d0.. (1..256, default 1;\n"
         "                       a target has one per mountpath)\n"
         "Prints a row per interval and op kind (ops/s, MB/s = 10^6 B/s, names/s or samples/s,\n"
         "latency min/avg/p50/p90/p99/max, errors) and a summary; with --json one JSON\n"
         "document at the end. Objects written are left in the bucket.\n"
         "Exits 1 when any operation failed.\n",
         cmdBench},
        {{"demo", "fashion-mnist"},
         "demo fashion-mnist [--bucket B] [--shard-bucket S] [--shard-size 10MiB] [--no-shard] [--limit N] "
         "[--source DIR] [--out DIR] [--workers N] [--force]",
         "load Fashion-MNIST (Debian's dataset-fashion-mnist) as WebDataset samples and shards",
         "Converts the 70,000 images into samples <split>/<index>.png, .cls (class index)\n"
         "and .json (label, label_name, split, index), uploads them as loose objects, then\n"
         "shards them with an ishard job (alpha order) and waits for it.\n"
         "  --bucket B       loose samples (default fashion-mnist-raw; created if missing)\n"
         "  --shard-bucket S the shards (default fashion-mnist; created if missing)\n"
         "  --shard-size Z   shard size (default 10MiB)\n"
         "  --no-shard       upload only\n"
         "  --limit N        only the first N samples (default: all)\n"
         "  --source DIR     the idx files (default /usr/share/datasets/fashion-mnist)\n"
         "  --out DIR        keep the converted files there (default: a temporary directory)\n"
         "  --workers N      parallel uploads, 1..256 (default 16)\n"
         "  --force          load again even when the buckets already hold objects\n"
         "With samples loaded but no shards (an interrupted run), only shards them.\n",
         cmdDemoFashionMnist},
    };
    return kCommands;
}

constexpr const char* kGlobalHelp =
    "global options:\n"
    "  --endpoint URL  the proxy (else $TESSERA_ENDPOINT, else http://127.0.0.1:8080)\n"
    "  --json          print JSON documents instead of tables\n"
    "  --token-file F  the session file of \"tessera login\" (see \"tessera login --help\")\n"
    "  --ca-file F     for an https:// endpoint: trust the CAs of this PEM file (the\n"
    "                  cluster's CA) instead of the system's (else $TESSERA_CA_FILE)\n"
    "  --insecure      for an https:// endpoint: do not check the server's certificate\n"
    "                  (test setups only; else $TESSERA_INSECURE=1)\n"
    "  -h, --help      this help, or a command's help after the command\n";

void usage(std::ostream& os)
{
    os << "usage: tessera [--endpoint URL] [--json] [--token-file F] [--ca-file F] [--insecure] COMMAND [ARGS]\n\n"
       << kGlobalHelp << "\ncommands:\n";
    std::size_t width = 0;
    for (const auto& c : commands()) width = std::max(width, c.synopsis.size());
    width = std::min<std::size_t>(width, 40);
    for (const auto& c : commands()) {
        os << "  " << c.synopsis;
        if (c.synopsis.size() > width) os << "\n  " << std::string(width, ' ');
        else os << std::string(width - c.synopsis.size(), ' ');
        os << "  " << c.summary << "\n";
    }
    os << "\nexit codes: 0 ok, 1 the cluster said no or could not be reached, 2 usage error\n"
          "\"tessera COMMAND --help\" describes a command's options.\n";
}

void commandUsage(std::ostream& os, const Command& c, bool full)
{
    os << "usage: tessera " << c.synopsis << "\n";
    if (!full) return;
    os << "\n" << c.summary << "\n";
    if (!c.details.empty()) os << "\n" << c.details;
}

// Commands whose first word is `group` ("bucket"), for "tessera bucket".
bool groupUsage(std::ostream& os, const std::string& group)
{
    bool any = false;
    for (const auto& c : commands()) {
        if (c.words.size() < 2 || c.words.front() != group) continue;
        if (!any) os << "usage:\n";
        any = true;
        os << "  tessera " << c.synopsis << "\n";
    }
    return any;
}

}  // namespace

namespace {

// Makes sure the endpoint is a Tessera proxy before a command runs: a
// target is replaced by its cluster's proxy (with a note), and a server
// that is not Tessera is named for what it is, not quoted page by page.
// A node that cannot be reached is left to the command, which says so.
api::Status resolveEndpoint(CliContext& ctx)
{
    client::HttpClient::Options o = ctx.transportOptions();
    o.connectTimeout = std::chrono::milliseconds(3000);
    o.ioTimeout = std::chrono::milliseconds(5000);
    o.retriesOn503 = 0;
    o.followRedirects = false;
    client::HttpClient http(o);
    // Tessera's health document (AIStore's health has no body).
    auto r = http.send(client::Method::Get, ctx.endpoint + std::string(api::path::kHealth) + "?detail=true");
    if (!r) return {};
    auto health = api::parseMessage<api::Health>(r->body, "health");
    if (!health) {
        const auto type = r->header("content-type");
        std::string what = "HTTP " + std::to_string(r->status) + (type.empty() ? "" : " (" + type + ")");
        const auto line = api::firstLine(r->body, 120);
        if (!line.empty()) what += ": " + line;
        return api::Error::badRequest(ctx.endpoint + " does not look like a Tessera proxy: GET /v1/health answered " +
                                      what);
    }
    if (health->role == api::kRoleProxy) return {};
    if (health->role != api::kRoleTarget) {
        return api::Error::badRequest(ctx.endpoint + " is a Tessera node of unknown role \"" + health->role + "\"");
    }
    auto smap = http.send(client::Method::Get, ctx.endpoint + api::path::daemonWhat("smap"));
    std::string proxy;
    if (smap && smap->isSuccess()) {
        if (auto s = api::parseSmap(smap->body); s && !s->primary.publicNet.url.empty())
            proxy = s->primary.publicNet.url;
    }
    if (proxy.empty()) {
        return api::Error::badRequest(ctx.endpoint + " is target " + health->daemonId +
                                      ", not a proxy, and does not know its proxy yet (" + health->status +
                                      "): point --endpoint at the proxy");
    }
    *ctx.err << "note: " << ctx.endpoint << " is target " << health->daemonId << ", not a proxy; using its proxy "
             << proxy << "\n";
    ctx.endpoint = proxy;
    return {};
}

}  // namespace

int CliApp::run(int argc, char** argv, std::ostream& out, std::ostream& err)
{
    CliContext ctx;
    ctx.out = &out;
    ctx.err = &err;
    const char* env = std::getenv("TESSERA_ENDPOINT");
    ctx.endpoint = (env != nullptr && *env != '\0') ? env : "http://127.0.0.1:8080";
    if (const char* ca = std::getenv("TESSERA_CA_FILE"); ca != nullptr) ctx.tls.caFile = ca;
    if (const char* insecure = std::getenv("TESSERA_INSECURE"); insecure != nullptr) {
        ctx.tls.insecure = std::string(insecure) == "1";
    }

    // Global options may appear anywhere; everything else is the command and its arguments.
    std::vector<std::string> words;
    bool help = false;
    std::string tokenFile;
    // "--name value" or "--name=value"; false when `a` is not --name.
    const auto globalValue = [&](const std::string& a, const std::string& name, int& i, std::string& out) {
        if (a == name) {
            out = i + 1 < argc ? argv[++i] : "";
            return true;
        }
        if (a.rfind(name + "=", 0) == 0) {
            out = a.substr(name.size() + 1);
            return true;
        }
        return false;
    };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        std::string value;
        if (globalValue(a, "--endpoint", i, value)) {
            if (value.empty()) {
                err << "error: --endpoint needs a URL\n";
                usage(err);
                return kExitUsage;
            }
            ctx.endpoint = value;
        } else if (globalValue(a, "--token-file", i, value)) {
            if (value.empty()) {
                err << "error: --token-file needs a path\n";
                usage(err);
                return kExitUsage;
            }
            tokenFile = value;
        } else if (globalValue(a, "--ca-file", i, value)) {
            if (value.empty()) {
                err << "error: --ca-file needs a path\n";
                usage(err);
                return kExitUsage;
            }
            ctx.tls.caFile = value;
        } else if (a == "--insecure") {
            ctx.tls.insecure = true;
        } else if (a == "--json") {
            ctx.json = true;
        } else if (a == "-h" || a == "--help") {
            help = true;
        } else {
            words.push_back(a);
        }
    }
    if (words.empty()) {
        usage(help ? out : err);
        return help ? kExitOk : kExitUsage;
    }
    if (ctx.tls.insecure && !help) err << "warning: --insecure: the server's certificate is not checked\n";
    for (const auto& c : commands()) {
        if (words.size() < c.words.size()) continue;
        if (!std::equal(c.words.begin(), c.words.end(), words.begin())) continue;
        if (help) {
            commandUsage(out, c, true);
            return kExitOk;
        }
        ctx.args.assign(words.begin() + static_cast<long>(c.words.size()), words.end());
        auto endpoint = api::normalizeEndpoint(ctx.endpoint);
        if (!endpoint) {
            err << "error: " << endpoint.error().message << "\n";
            return kExitUsage;
        }
        ctx.endpoint = std::move(endpoint.value());
        if (auto st = resolveEndpoint(ctx); !st) return ctx.fail(st.error());
        if (tokenFile.empty()) {
            auto path = TokenFile::defaultPath();
            if (!path) return ctx.fail(path.error());
            tokenFile = std::move(path.value());
        }
        ctx.tokenFile = tokenFile;
        // Logging in needs no token; logging out uses the file's own.
        if (c.words.front() != "login" && c.words.front() != "logout") {
            if (auto st = useCredentials(ctx); !st) return ctx.fail(st.error());
        }
        try {
            return c.run(ctx);
        } catch (const UsageError& e) {
            err << "error: " << e.what() << "\n";
            commandUsage(err, c, false);
            return kExitUsage;
        } catch (const std::exception& e) {
            // A bug or an answer of an unexpected shape; never a crash.
            err << "error: " << e.what() << "\n";
            return kExitFailed;
        }
    }
    if (words.size() == 1 || help) {
        if (groupUsage(help ? out : err, words.front())) return help ? kExitOk : kExitUsage;
    }
    if (words.front().rfind('-', 0) == 0) {
        err << "error: unknown option " << words.front() << "\n";
    } else {
        err << "error: unknown command \"" << words.front() << (words.size() > 1 ? " " + words[1] : "") << "\"\n";
    }
    usage(err);
    return kExitUsage;
}

int CliContext::fail(const api::Error& e) const
{
    *err << "error: " << e.message;
    if (!e.causedBy.empty()) *err << " (" << e.causedBy << ")";
    *err << "\n";
    if (client::failedOnCertificate(e)) {
        *err << "hint: pass --ca-file with the cluster's CA (or set $TESSERA_CA_FILE), or --insecure for a test "
                "setup\n";
    }
    if (e.kind == api::ErrorKind::Unauthorized) {
        *err << (token.empty() ? "hint: this cluster checks tokens; log in first: tessera login --user NAME\n"
                               : "hint: the token was refused; log in again: tessera login --user NAME\n");
    }
    return kExitFailed;
}

std::pair<std::string, std::string> splitBucketPath(const std::string& s)
{
    auto slash = s.find('/');
    if (slash == std::string::npos) return {s, {}};
    return {s.substr(0, slash), s.substr(slash + 1)};
}

std::pair<std::string, std::string> needBucketPath(const std::string& s, const char* what)
{
    auto parts = splitBucketPath(s);
    if (parts.first.empty() || parts.second.empty()) {
        throw UsageError(std::string("expected BUCKET/") + what + ", got \"" + s + "\"");
    }
    return parts;
}

}  // namespace tessera::cli
