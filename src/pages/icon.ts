/** The sandbox's icon: a "P" on the yellow of the SANDBOX banner. SVG, so it is text in the package and sharp at any size. */
export const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  '<rect x="1" y="1" width="30" height="30" rx="7" fill="#ffd60a" stroke="#000" stroke-width="2"/>' +
  '<path d="M11.5 24V8h6a4.75 4.75 0 0 1 0 9.5h-6" fill="none" stroke="#000" stroke-width="3.5" stroke-linejoin="round"/>' +
  '</svg>\n'
