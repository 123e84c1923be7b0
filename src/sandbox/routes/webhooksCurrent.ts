import type { Route } from '../router.js';

export const webhookCurrentRoutes: Route[] = [];
