/** Marketplace handles: lowercase letters, digits and hyphens (`klaviyo-email-marketing`). */
export const HANDLE_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function isValidHandle(handle: string): boolean {
  return handle.length <= 200 && HANDLE_PATTERN.test(handle);
}

/** The marketplace's page of an app, by its handle. */
export function listingUrl(handle: string): string {
  return `https://apps.platform.example/${handle}`;
}
