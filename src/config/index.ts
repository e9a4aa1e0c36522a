export { formatDuration, parseDuration } from './duration.js';
export { DEFAULT_CONFIG_PATH, loadConfig, parseConfig } from './load.js';
export type { AppConfig, CategoryConfig, ChannelConfig, Config } from './schema.js';
