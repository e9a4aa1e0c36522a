import type {
  AppRef,
  IncidentAlert,
  Notification,
  RatingDropAlert,
  ReviewAlert,
  ReviewRef,
  Severity,
} from '../../../src/alerts/types.js';

export const app: AppRef = { handle: 'my-app', name: 'My App', url: 'https://apps.example/my-app' };

export function review(overrides: Partial<ReviewRef> = {}): ReviewRef {
  return {
    reviewId: '2369401',
    reviewer: "Jane's Shop",
    location: 'Canada',
    rating: 1,
    content: 'Charged twice and support never answered, uninstalling',
    createdDate: '2025-03-31T00:00:00+00:00',
    timeUsingApp: 'Over 1 year using the app',
    ...overrides,
  };
}

export const highSeverity: Severity = {
  score: 72,
  priority: 'high',
  reasons: ['1 star', 'mentions billing: charged twice', 'long-time user: over 1 year using the app'],
};

export function reviewAlert(
  reviewOverrides: Partial<ReviewRef> = {},
  severity: Severity = highSeverity,
  appRef: AppRef = app,
): ReviewAlert {
  return { kind: 'review', app: appRef, review: review(reviewOverrides), severity };
}

export function single(alert: ReviewAlert | RatingDropAlert | IncidentAlert): Notification {
  return { kind: 'single', alert };
}

export function drop(overrides: Partial<RatingDropAlert> = {}): RatingDropAlert {
  return {
    kind: 'rating-drop',
    app,
    priority: 'high',
    from: { average: 4.62, count: 1204, at: '2025-03-01T09:15:00.000Z' },
    to: { average: 4.41, count: 1209, at: '2025-03-31T09:15:00.000Z' },
    explanation: { newLowReviews: 3, lowReviewsShare: 0.6, vanished: 2, rerated: 1 },
    ...overrides,
  };
}

export function incident(count = 4): IncidentAlert {
  return {
    kind: 'incident',
    app,
    priority: 'critical',
    windowHours: 24,
    reviews: Array.from({ length: count }, (_, i) =>
      review({
        reviewId: String(100 + i),
        reviewer: `Store ${i}`,
        content: `Checkout broken ${i}. ${'x'.repeat(400)}`,
      }),
    ),
  };
}

/** `count` review alerts with scores 1..count spread over priorities, in an order that is not by score. */
export function group(
  count: number,
  content = (i: number) => `Review ${i}: ${'it broke again. '.repeat(30)}`,
) {
  const alerts = Array.from({ length: count }, (_, i) => {
    const score = ((i * 37) % count) + 1;
    const priority = score >= 80 ? 'critical' : score >= 60 ? 'high' : score >= 35 ? 'medium' : 'low';
    return reviewAlert(
      { reviewId: String(i), reviewer: `Reviewer ${score}`, content: content(i) },
      { score, priority, reasons: ['1 star', `mentions bugs: broke (${score})`] },
    );
  });
  return { kind: 'group' as const, app, alerts };
}
