/** The console's page script: reads the page data the shell wrote and draws the app. */
import { render } from 'preact';
import type { ConsolePageData } from '../page-data.js';
import { setPageData } from './api.js';
import { App } from './app.js';
import { useLanguage } from './texts.js';

const data = JSON.parse(document.getElementById('page-data')?.textContent ?? '{}') as ConsolePageData;
setPageData(data);
useLanguage(data.lang);
const root = document.getElementById('app') as HTMLElement;
root.textContent = '';
render(<App />, root);
