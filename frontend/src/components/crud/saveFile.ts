/** Saves a file the page holds (a fetched download, a CSV made here) through a temporary object URL. */
export function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.style.display = 'none';
  document.body.appendChild(a);
  a.click();
  a.remove();
  // the browser has taken the file once the click's task has run
  setTimeout(() => URL.revokeObjectURL(url), 1_000);
}
