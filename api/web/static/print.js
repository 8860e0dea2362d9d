// The print button of the table slips (no inline scripts: the pages' CSP).
document.getElementById("print")?.addEventListener("click", () => window.print());
