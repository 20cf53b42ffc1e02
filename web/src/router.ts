/** Hash routes: `#/` the lobby, `#/games/{id}` a game's table (a shareable link),
 * `#/games/{id}/replay` its replay. */

export type Route = { page: "lobby" } | { page: "game" | "replay"; gameId: string };

export function parseRoute(hash: string): Route {
  const match = /^#\/games\/([A-Za-z0-9_-]{1,64})(\/replay)?\/?$/.exec(hash);
  if (match?.[1] === undefined) return { page: "lobby" };
  return { page: match[2] !== undefined ? "replay" : "game", gameId: match[1] };
}

/** Where a game's replay is. */
export function replayPath(gameId: string): string {
  return `/games/${gameId}/replay`;
}

export function navigate(path: string): void {
  globalThis.location.hash = `#${path}`;
}

/** The link a friend opens to join this game. */
export function gameLink(gameId: string): string {
  const { origin, pathname } = globalThis.location;
  return `${origin}${pathname}#/games/${gameId}`;
}
