/**
 * `k0maru ui --open`: shows the console in the user's default browser with the `open` package (macOS `open`,
 * Windows and WSL through PowerShell, xdg-open elsewhere). Opening is a convenience: when it cannot work the
 * server keeps serving and the printed URL is the way in.
 */
export async function openInBrowser(url: string, env: NodeJS.ProcessEnv, warn: (message: string) => void): Promise<void> {
  // A Linux machine without a graphical session (SSH, CI, a container): xdg-open would fall back to a text-mode
  // browser detached from the terminal, or fail. Say so instead. WSL opens the Windows browser without $DISPLAY.
  if (process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY && !env.WSL_DISTRO_NAME) {
    warn('--open: no graphical session here ($DISPLAY and $WAYLAND_DISPLAY are unset); open the URL above in a browser yourself');
    return;
  }
  try {
    const { default: open } = await import('open');
    const child = await open(url);
    // The launcher exits at once when it handed the URL over; a non-zero exit means no browser took it.
    child.once('exit', (code) => {
      if (code) warn(`--open: the system's URL opener exited with code ${code}; open the URL above in a browser yourself`);
    });
  } catch (err) {
    warn(`--open: could not start a browser (${(err as Error).message}); open the URL above in a browser yourself`);
  }
}
