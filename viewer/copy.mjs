// Copies the page next to the bundle: dist/ holds everything `tumble view` embeds.
import { copyFileSync, mkdirSync } from "node:fs";
mkdirSync("dist", { recursive: true });
copyFileSync("index.html", "dist/index.html");
