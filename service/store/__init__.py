"""Game persistence behind one protocol (`service.store.base`): `MemoryStore` and
`RedisStore` (its key layout in `service.store.redis`); ``open_store(url)`` in
`service.store.factory` picks one from ``STORE_URL``.

The package itself imports nothing: the settings read the store's defaults from
`service.store.base` without loading redis-py and gevent.
"""
