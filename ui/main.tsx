import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { onLocaleChange, startLanguage } from "./i18n/i18n.ts";
import { App } from "./app.tsx";
import { registerServiceWorker } from "./offline/status.ts";
import { takeServerView } from "./map/server-view.ts";

// The page may carry the server's drawing of the map's first view: the map page takes it over.
takeServerView();
/** The app, drawn anew when the language or the units change. */
function Root() {
  const [version, setVersion] = useState(0);
  useEffect(() => onLocaleChange(() => setVersion((v) => v + 1)), []);
  return <App key={version} />;
}
// the visitor's language first (English at once; another is one small file, precached for offline)
startLanguage().then(() => render(<Root />, document.getElementById("app")!));
registerServiceWorker();
