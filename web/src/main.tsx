/** The web front end of the Rummy service: a hash-routed page of the lobby or one game. */

import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { onConnection } from "./api/client";
import type { Connection } from "./api/retry";
import { CATALOGUES, LANGUAGES, type Lang, initialLanguage, language, onLanguage, setLanguage, t } from "./i18n";
import { Lobby } from "./lobby";
import { ReplayPage } from "./replay";
import { parseRoute } from "./router";
import { GamePage } from "./table";
import "./style.css";

setLanguage(initialLanguage());

/** The language switcher: each language named in itself; the choice is remembered. */
function LanguagePicker(props: { lang: Lang }) {
  return (
    <label class="language">
      <select
        aria-label={t("language")}
        value={props.lang}
        onChange={(e) => setLanguage(e.currentTarget.value as Lang, true)}
      >
        {LANGUAGES.map((lang) => (
          <option key={lang} value={lang} lang={lang}>
            {CATALOGUES[lang].lang_name}
          </option>
        ))}
      </select>
    </label>
  );
}

function App() {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  const [lang, setLang] = useState<Lang>(language());
  const [connection, setConnection] = useState<Connection>("online");
  useEffect(() => {
    const onHash = (): void => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onHash);
    const stop = onConnection(setConnection);
    const stopLanguage = onLanguage(setLang);
    return () => {
      removeEventListener("hashchange", onHash);
      stop();
      stopLanguage();
    };
  }, []);
  return (
    <>
      <header class="top">
        <a href="#/" class="brand">
          ♠♥ {t("brand")}
        </a>
        {connection === "reconnecting" && (
          <span class="reconnecting" role="status">
            {t("reconnecting")}
          </span>
        )}
        <LanguagePicker lang={lang} />
      </header>
      {route.page === "game" ? (
        <GamePage key={route.gameId} gameId={route.gameId} />
      ) : route.page === "replay" ? (
        <ReplayPage key={route.gameId} gameId={route.gameId} />
      ) : (
        <Lobby />
      )}
    </>
  );
}

const root = document.getElementById("app");
if (root !== null) render(<App />, root);
