// Starts the self-hosted Swagger UI on /docs (a file, not inline, so the page's CSP stays script-src 'self').
"use strict";
window.addEventListener("load", () => {
  const node = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({ url: node.dataset.openapi, dom_id: "#swagger-ui", deepLinking: true });
});
