/** Hash routes: `#/` the lobby, `#/games/{id}` a game's table (a shareable link). */

export type Route = { page: "lobby" } | { page: "game"; gameId: string };

export function parseRoute(hash: string): Route {
  const match = /^#\/games\/([A-Za-z0-9_-]{1,64})\/?$/.exec(hash);
  return match?.[1] !== undefined ? { page: "game", gameId: match[1] } : { page: "lobby" };
}

export function navigate(path: string): void {
  globalThis.location.hash = `#${path}`;
}

/** The link a friend opens to join this game. */
export function gameLink(gameId: string): string {
  const { origin, pathname } = globalThis.location;
  return `${origin}${pathname}#/games/${gameId}`;
}
