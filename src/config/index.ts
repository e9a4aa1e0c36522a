export { formatDuration, parseDuration } from './duration.js';
export { DEFAULT_CONFIG_PATH, loadConfig, parseConfig } from './load.js';
export { routingWarnings } from './routing.js';
export {
  type AppConfig,
  type CategoryConfig,
  CHANNEL_SCHEMAS,
  type ChannelConfig,
  type ChannelConfigOf,
  type Config,
} from './schema.js';
