import { render } from "preact";
import { startLanguage } from "./i18n/i18n.ts";
import { useLocaleChange } from "./i18n/localized.tsx";
import { App } from "./app.tsx";
import { registerServiceWorker } from "./offline/status.ts";
import { takeServerView } from "./map/server-view.ts";

// The page may carry the server's drawing of the map's first view: the map page takes it over.
takeServerView();
/**
 * The app, drawn again when the language or the units change: every component renders anew with
 * the new words, keeping its state and data (no remount: a map or a form on screen stays).
 */
function Root() {
  // the header and the strips re-render from here; each page by its own wrapper (ui/i18n/localized.tsx)
  return <App locale={useLocaleChange()} />;
}
// the visitor's language first (English at once; another is one small file, precached for offline)
startLanguage().then(() => render(<Root />, document.getElementById("app")!));
registerServiceWorker();
