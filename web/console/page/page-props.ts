/** What a page is given: the rest of the path after its own segment (`users/{id}` gives the id) and the query. */
export interface PageProps {
  rest: string;
  query: URLSearchParams;
}
