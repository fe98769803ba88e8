import { render } from "preact";
import { App } from "./app.tsx";
import { registerServiceWorker } from "./offline/status.ts";
import { takeServerView } from "./map/server-view.ts";

// The page may carry the server's drawing of the map's first view: the map page takes it over.
takeServerView();
render(<App />, document.getElementById("app")!);
registerServiceWorker();
