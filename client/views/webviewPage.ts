// The page of a webview panel (the agent diagram, the evaluation results): a strict Content Security Policy, where
// only the page's own style and scripts run (a fresh nonce each time), plus what the page itself says.
import { randomBytes } from 'node:crypto';

export interface WebviewPage {
  /** The page's CSS (without the <style> tag). */
  style: string;
  body: string;
  /** An inline script, or a script file the webview may load (its webview URI). */
  script: { inline: string } | { src: string };
  /** More sources for images (e.g. the webview's cspSource and `data:` for a chart's canvas). */
  imgSrc?: string;
}

export function webviewPage(p: WebviewPage): string {
  const nonce = randomBytes(16).toString('base64');
  const img = p.imgSrc ? ` img-src ${p.imgSrc};` : '';
  const script =
    'inline' in p.script ? `<script nonce="${nonce}">\n${p.script.inline}\n</script>` : `<script nonce="${nonce}" src="${p.script.src}"></script>`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none';${img} style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style nonce="${nonce}">
${p.style}
</style></head>
<body>
${p.body}
${script}
</body></html>`;
}
