/** The web front end of the Rummy service: a hash-routed page of the lobby or one game. */

import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { onConnection } from "./api/client";
import type { Connection } from "./api/retry";
import { Lobby } from "./lobby";
import { parseRoute } from "./router";
import { GamePage } from "./table";
import "./style.css";

function App() {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  const [connection, setConnection] = useState<Connection>("online");
  useEffect(() => {
    const onHash = (): void => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onHash);
    const stop = onConnection(setConnection);
    return () => {
      removeEventListener("hashchange", onHash);
      stop();
    };
  }, []);
  return (
    <>
      <header class="top">
        <a href="#/" class="brand">
          ♠♥ Rummy
        </a>
        {connection === "reconnecting" && (
          <span class="reconnecting" role="status">
            Reconnecting…
          </span>
        )}
      </header>
      {route.page === "game" ? <GamePage key={route.gameId} gameId={route.gameId} /> : <Lobby />}
    </>
  );
}

const root = document.getElementById("app");
if (root !== null) render(<App />, root);
