"""Shard URLs for the WebDataset library, straight on the owning targets.

``wds.WebDataset(tessera.wds.urls(client, "fashion-mnist", "shard-{000000..000022}.tar"))``
reads each shard from the target that holds it (no proxy hop, no redirect).
The URLs carry the cluster map version they were computed with: after the
map changed, a target that no longer owns a shard redirects (``curl -L``,
which WebDataset's ``pipe:`` and ``http`` openers follow, takes it).
"""

from .shards import expand_template


def urls(client, bucket, template_or_names, direct=True):
    """One URL per shard: ``template_or_names`` is a brace template or a list of names."""
    names = expand_template(template_or_names) if isinstance(template_or_names, str) else list(template_or_names)
    return [client.object_url(bucket, n, direct=direct) for n in names]


def pipe_urls(client, bucket, template_or_names, direct=True):
    """The same as ``pipe:curl -sfL URL`` commands (WebDataset's way to read from any
    command; ``-f`` turns an HTTP error into a failed read)."""
    return [f"pipe:curl -sfL '{u}'" for u in urls(client, bucket, template_or_names, direct)]
