/** The app's icon as module resources: SVG source and PNG renditions. */
module dev.kiln.icons {
    exports dev.kiln.icons;
}
