"""Operations tests: logs, metrics, rate limits and Redis durability with real servers."""
