"""The epoch plan without a server: elastic determinism and resumption checked
by brute force over many shapes, with the DataLoader's and the ranks' merging
simulated exactly (round-robin over the workers still running, then rank by
rank per step), plus the brace templates against the C++ syntax."""

import random
import unittest

import local_cluster  # noqa: F401  (puts console/python on sys.path)
from tessera import shards


def fake_shards(rng, n):
    return [shards.ShardInfo(f"s{i:03d}", [f"k{i}-{j}" for j in range(rng.randint(0, 40))], None)
            for i in range(n)]


def partition_sequence(sh, seed, epoch, shuffle, streams, b, block, P, p, seen):
    """What partition p yields: its streams round-robin, a unit at a time."""
    mine = shards.partition_plan(sh, seed, epoch, shuffle, streams, b, P, p, seen)
    iters = [shards._stream_positions(s, seed, epoch, shuffle, block) for s in mine]
    out, active = [], list(range(len(iters)))
    while active:
        nxt = []
        for i in active:
            unit = [v for v in (next(iters[i], None) for _ in range(b)) if v is not None]
            out.extend(unit)
            if len(unit) == b:
                nxt.append(i)
        active = nxt
    return out


def simulate(sh, seed, epoch, shuffle, streams, b, block, ranks, workers, seen=0):
    """Ranks x workers DataLoaders (batch_size b), merged step by step."""
    per_rank = []
    for r in range(ranks):
        batches = []
        for w in range(workers):
            seq = partition_sequence(sh, seed, epoch, shuffle, streams, b, block, ranks * workers, r + ranks * w,
                                     seen)
            batches.append([seq[i:i + b] for i in range(0, len(seq), b)])
        # DataLoader: round-robin over workers that still have batches.
        out = []
        for k in range(max(len(x) for x in batches)):
            for w in range(workers):
                if k < len(batches[w]):
                    out.append(batches[w][k])
        per_rank.append(out)
    merged, s = [], 0
    while any(s < len(x) for x in per_rank):
        for x in per_rank:
            if s < len(x):
                merged.extend(x[s])
        s += 1
    return merged


class PlanTest(unittest.TestCase):
    def test_elastic_determinism_by_brute_force(self):
        rng = random.Random(1)
        for trial in range(300):
            sh = fake_shards(rng, rng.randint(1, 12))
            streams = rng.choice([1, 2, 4, 6, 8, 12, 24])
            b = rng.randint(1, 7)
            block = rng.randint(1, 30)
            shuffle = rng.random() < 0.7
            seed, epoch = rng.randint(0, 99), rng.randint(0, 3)
            ref = shards.global_order(sh, seed, epoch, shuffle, streams, b, block)
            total = sum(len(s) for s in sh)
            self.assertEqual(sorted(ref), sorted((i, j) for i, s in enumerate(sh) for j in range(len(s))))
            self.assertEqual(len(ref), total)
            for ranks, workers in [(1, 1), (2, 1), (1, 2), (2, 2), (4, 2), (3, 2), (2, 3)]:
                if streams % (ranks * workers):
                    continue
                got = simulate(sh, seed, epoch, shuffle, streams, b, block, ranks, workers)
                self.assertEqual(got, ref, f"trial {trial}: {ranks}x{workers} streams={streams} b={b}")
            # Resume at every unit boundary of the 1x1 order, on another shape.
            boundaries = [0]
            sizes = [len(ref[i:i + b]) for i in range(0, len(ref), b)]
            for n in sizes:
                boundaries.append(boundaries[-1] + n)
            for seen in rng.sample(boundaries, min(4, len(boundaries))):
                for ranks, workers in [(1, 1), (2, 2), (1, 2)]:
                    if streams % (ranks * workers):
                        continue
                    got = simulate(sh, seed, epoch, shuffle, streams, b, block, ranks, workers, seen)
                    self.assertEqual(got, ref[seen:], f"trial {trial}: resume at {seen}, {ranks}x{workers}")

    def test_epochs_and_seeds_change_the_order(self):
        sh = fake_shards(random.Random(2), 10)
        a = shards.global_order(sh, 7, 0, True, 8, 4, 16)
        self.assertNotEqual(a, shards.global_order(sh, 7, 1, True, 8, 4, 16))
        self.assertNotEqual(a, shards.global_order(sh, 8, 0, True, 8, 4, 16))
        self.assertEqual(a, shards.global_order(sh, 7, 0, True, 8, 4, 16))

    def test_resume_off_a_batch_boundary_is_refused(self):
        sh = fake_shards(random.Random(3), 5)
        plan = shards.plan_epoch(sh, 1, 0, True, 4, 8, )
        with self.assertRaisesRegex(ValueError, "batch boundary"):
            shards.resume_streams(plan, 8, 3)

    def test_partitions_must_divide_streams(self):
        sh = fake_shards(random.Random(4), 5)
        with self.assertRaisesRegex(ValueError, "must divide"):
            shards.partition_plan(sh, 1, 0, True, 8, 2, 3, 0)

    def test_templates_expand_as_the_cpp_does(self):
        self.assertEqual(shards.expand_template("shard-{000..002}.tar"),
                         ["shard-000.tar", "shard-001.tar", "shard-002.tar"])
        self.assertEqual(shards.expand_template("img-{0..20..10}.jpg"), ["img-0.jpg", "img-10.jpg", "img-20.jpg"])
        self.assertEqual(shards.expand_template("d{0..1}/p-{00..01}"), ["d0/p-00", "d0/p-01", "d1/p-00", "d1/p-01"])
        self.assertEqual(shards.expand_template("{0..15}")[:2], ["0", "1"])
        self.assertEqual(shards.expand_template("{00..15}")[:2], ["00", "01"])
        with self.assertRaises(ValueError):
            shards.expand_template("x-{5..1}")


if __name__ == "__main__":
    unittest.main()
