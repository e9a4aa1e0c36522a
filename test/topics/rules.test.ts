import { describe, expect, it } from 'vitest';
import { evaluate, readLabelledFiles, TUNING_SET } from '../../bench/topics-eval.js';
import { BUILT_IN_TAXONOMY, BUILT_IN_TOPIC_NAMES, topicsOf } from '../../src/topics/index.js';

function names(text: string): string[] {
  return topicsOf(text, BUILT_IN_TAXONOMY).map((t) => t.name);
}

/**
 * Each topic's rules: what puts a review in it (with word forms, typos and negation) and the borderline
 * that must not. Written from docs/topics.md, not from the labelled set.
 */
const CASES: Record<string, { yes: string[]; no: string[] }> = {
  billing: {
    yes: [
      'Way too pricey',
      'They refunded me in a day',
      'charged me twice',
      'worth every penny',
      'Cancelled my subscription',
      '$29 a month for this?',
      'free plan is enough',
      'Hidden fees everywhere',
      'the history only goes back 30 days unless you upgrade',
    ],
    no: [
      'Sales went up $3k',
      'customers pay full price at checkout',
      'customers see the bundle price, then pay full price',
      'If you sell subscriptions, look elsewhere',
      'free shipping bar works',
      'bug-free so far',
      'We offer $10 off the first order through the popup',
      'orders over $100 get a free gift',
      'I am in charge of the store',
      'trial and error to get the layout right',
      'they have plans to add Instagram',
      'It syncs our Recharge subscriptions',
      'the invoice PDF shows the wrong total',
      'AOV went from $38 to $51',
      'paid a freelancer $150 to clean it up',
      'We moved 900 subscriptions over from another app',
      'price tiers per customer tag',
      'Prices in other currencies are wrong',
      'sends review requests for orders that were refunded',
      'Subscribers are all marked unsubscribed',
    ],
  },
  bugs: {
    yes: [
      "The widget doesn't load",
      'crashes on save',
      'Stopped working after the update',
      'No bugs so far',
      'keeps throwing errors',
      'it never shows on mobile',
      'Every customer got the same email four times.',
      'Stock counts are off by one on every variant.',
      'It keeps logging me out of the dashboard.',
      'The popup stopped firing after I changed the trigger.',
      'The star rating still shows 0.0 on collection pages',
      'The widget is missing from my product page.',
      'Works on desktop but not on mobile',
      'speedy and stable',
      'Installed. Nothing happened.',
      'Conflicts with the signup form, neither of them shows now.',
      'keeps signing me out',
      'the review counts are inaccurate',
      'flaky since the update',
      "It doesn't do anything",
      'Google says the feed is malformed',
      'shows $0.00 for Canada',
      'sends the emails reliably, never missed one',
      'the sync oversold 14 units',
      'my site went down the next day',
      'the widget sits on top of the chat bubble',
      'the editor keeps jumping back to the top',
      'emails go out for products that are still out of stock',
    ],
    no: [
      'Works fine',
      'No issues at all',
      "doesn't work with my theme",
      "can't show different offers to returning customers",
      'No way to export the order list',
      'I got stuck on the first step, so I asked them',
      'Great for small stores but not for us.',
      'Fixes broken links across the store',
      'fixes the problem of abandoned carts',
      'the points balance resets to zero after the update',
      'Problem was my fault anyway',
      'the help articles go to an error page',
      "Loads async, doesn't block rendering",
    ],
  },
  performance: {
    yes: [
      'Slows my store down',
      'Loads fast',
      'laggy admin',
      'page speed dropped',
      'It timed out twice',
      'Sloooow',
      "Loads fast and it's easy to use",
      'the fastest reviews widget I have tried',
      'notifications arrive ten minutes late',
      'the chart takes a while to render',
      'Loads async, tiny footprint',
      'no layout shift',
    ],
    no: [
      'Support replied fast',
      'quick to set up',
      'answered my questions quickly',
      'Took me ages to find the settings',
    ],
  },
  support: {
    yes: [
      'Support never replied',
      'emailed them twice',
      'Anna was helpful and they had it fixed in an hour',
      'no response to my ticket',
      'suport is amazing',
      'I wrote to support twice',
      'Been emailing for two weeks. Crickets.',
      'They keep telling me to clear my cache',
      'Emailed about a weird edge case',
      'I sent them an email',
    ],
    no: [
      "It doesn't support multiple currencies",
      'supports every language',
      'a must for any store owner',
      'our own support inbox is quieter',
      'The setup videos are really helpful',
      'I talked to other merchants before buying',
      'My support team loves it',
      'the chat bot gave me nonsense',
      'I asked my customers for reviews',
      'it helped us grow our list',
      'a button nobody asked for',
      'Gorgias tickets show up in it',
      'The chatbot answers most questions',
      'Had to contact my bank to stop the charges',
      'the live chat history only goes back 30 days',
    ],
  },
  setup: {
    yes: [
      'Easy to set up',
      'set everything up in 5 minutes',
      'installation was a breeze',
      'needed a developer to install it',
      'up and running in no time',
      'installed in under a minute',
    ],
    no: ['Installed it last week, sales are up', 'I uninstalled it'],
  },
  integrations: {
    yes: [
      'Syncs with Klaviyo',
      'conflicts with my theme',
      'not compatible with Dawn',
      'the Mailchimp intergration broke',
      'plays nicely with our subscription app',
      'moved our subscriptions over from another app',
      'the widget covers the Tidio chat bubble',
    ],
    no: [
      'Switched to Judge.me',
      'Cheaper than Yotpo',
      'changed it in the theme editor',
      'Our Google rankings dropped',
      'Imported my products from a CSV',
      'sign ups are up',
      'Imported products from our supplier CSV',
      'connect your domain first',
      'Another app that promises the world',
      'I posted about it in a Facebook group',
      'We use it with our Dawn theme',
      'had to restore a backup of our theme',
    ],
  },
  features: {
    yes: [
      'Wish it had a countdown timer',
      'Please add dark mode',
      'lots of customization',
      'no way to filter by rating',
      'It does not support multiple currencies',
      'Would love an option to hide out of stock items',
      'Hoping for a dark mode soon',
      'Lots of layouts to choose from',
      'Photo reviews only on Pro',
      'It can only show one upsell per product',
      'Please consider adding a dark mode',
      'They say it is on the roadmap',
      "can't schedule campaigns",
      'The carousel does not autoplay. Can that be added?',
      'the bulk editor is handy',
      'a cool idea, badly done',
      'Would pay more for proper reporting',
      'wish the alerts could go by SMS as well',
      "I'd like more control over the timing",
      "the layout can't be changed at all",
      'the integration only syncs email, not SMS',
      'The app is a bit basic',
      'sizes convert automatically',
    ],
    no: [
      'Great app',
      'Never had a single review go missing',
      'The widget is missing from my product page',
      'Exactly what we needed, thanks!',
      'It has never let me down',
      'They offered a refund',
      "wish I'd found it sooner",
      'the orders never got shipped',
      'needed our developer to add the code',
      "haven't needed more",
      'you can tell they care',
      'no phone support',
      'no layout shift',
    ],
  },
  'data-loss': {
    yes: [
      'The update deleted all my products',
      'lost all my settings',
      'all my reviews were wiped',
      'My orders disappeared',
      'kept every review intact after the migration',
      'All our loyalty points balances were reset to zero',
      'The sync stripped the tags off my customers',
      'every time I save, the colours go back to the default',
      'the order notes just vanish',
      'renamed all my product URLs without asking',
      'my loyalty points are gone',
      "couldn't recover any of my reviews",
    ],
    no: [
      'We lost two sales because checkout broke',
      'I deleted the app',
      'lost so much time on this',
      'The timer resets every time the page is refreshed',
      'Our rankings went with it',
      'found 140 images with missing alt text',
      'emails have gone out for two years',
      'pages still have the empty stars placeholder',
    ],
  },
  uninstall: {
    yes: [
      'Uninstalling today',
      'Removed after one day.',
      'got rid of it',
      'switched to Loox',
      'code left in my theme after removal',
      'uninstaled',
      'We dropped it after a month',
    ],
    no: [
      'Switched to the annual plan',
      'removed the watermark on Pro',
      'Uninstalled a different app for this one',
      'it replaced them with blank text',
      'they moved us to the new version',
      'we moved to Shopify last year',
    ],
  },
  usability: {
    yes: [
      'Easy to use',
      'The dashboard is confusing',
      'clunky interface',
      'user friendly',
      'hard to find the settings',
      'The offers are easy to build',
      'Took a while to get used to the editor',
      'settings for the same thing in three different places',
      'the setting pages is very confuse',
      'screen readers cannot read the stars',
      'the widget is not accessible',
      'The rule editor is a joy',
      'very logical layout',
      'hard to figure out',
      'the popup is hideous',
      'the stars match our font',
      'makes editing a nightmare',
      "I've clicked through every menu twice",
      'Where do I change the colour?',
      'Clean and modern',
    ],
    no: [
      'Setup was confusing',
      'So easy!',
      'Hidden fees everywhere',
      'please add a dark mode to the dashboard',
      'designed for small shops',
      'the docs are easy to find',
    ],
  },
};

describe('each built-in topic', () => {
  for (const [topic, { yes, no }] of Object.entries(CASES)) {
    it(`${topic}: finds it where the rules say, and only there`, () => {
      for (const text of yes) expect(names(text), text).toContain(topic);
      for (const text of no) expect(names(text), text).not.toContain(topic);
    });
  }
});

describe('the labelled set', () => {
  // The tuning set is reviews.jsonl + holdout-2.jsonl, 708 reviews (bench/README.md, under "Topics"): the
  // rules reached P 0.96, R 0.95 on them. A rule or engine change that costs more than two points here has
  // changed what the rules match, not just how fast. A later held-out set is measured by the bench, never here.
  it('keeps the tuning set within two points of what tuning reached (precision 0.94, recall 0.93)', () => {
    const all = readLabelledFiles(TUNING_SET);
    expect(all.length).toBeGreaterThanOrEqual(708);
    const { micro } = evaluate(all, BUILT_IN_TAXONOMY, BUILT_IN_TOPIC_NAMES);
    expect(micro.precision).toBeGreaterThanOrEqual(0.94);
    expect(micro.recall).toBeGreaterThanOrEqual(0.93);
  });
});
